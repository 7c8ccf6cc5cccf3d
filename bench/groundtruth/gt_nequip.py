"""Ground-truth bench, nequip: NequIP, the E(3)-equivariant interatomic potential, its layers, losses and training.

nequip 0.19.1 (mir-group) builds its models from builder functions decorated with ``model_builder`` (seed, dtype,
``GraphModel`` wrapper): ``NequIPGNNModel`` (and ``PresetNequIPGNNModel``, ``FullNequIPGNNModel``) stacks a type
embedding, spherical-harmonic edge attributes, normalized edge lengths (per edge type on request), a Bessel
encoding with a polynomial cutoff, interaction blocks (an e3nn tensor product scattered over the edges, weighted by
a radial MLP, normalized by the average number of neighbours, with a self-connection) under a gate or norm
nonlinearity, a scalar readout, per-type energy scales and shifts, an optional pair potential (ZBL, Lennard-Jones)
and a sum to the total energy; ``ForceStressOutput`` differentiates the energy by the positions and a symmetric cell
strain (``torch.autograd.grad``) for forces, virials and stress, or by given edge vectors (the LAMMPS ML-IAP path).
Data are ``AtomicDataDict`` dictionaries of tensors. Training runs through Lightning modules whose losses and
metrics are ``MetricsManager`` collections of torchmetrics metrics. The tables cover, at three atom types, two
frames of four atoms (complete neighbour graphs inside each frame), features of width 4 and radial MLPs of width 8:

- ``FULL``: whole models (a bench module calls them on a fresh copy of the dictionary with gradients enabled, as
  ``NequIPLightningModule.forward`` and the ASE calculator do): ``NequIPGNNModel`` over ``l_max`` 0, 1 and 2, with
  and without parity, per-irrep widths, one to three layers, deeper radial MLPs, energy only, periodic cells (stress)
  batched and for one frame, one frame without batch keys, given edge vectors, per-edge-type cutoffs, per-type
  average neighbour counts, per-type and trainable scales and shifts (or none, or shifts only), hidden and deep
  linear readouts, trainable Bessel roots, the norm nonlinearity, residual layers, the learnable shift, no
  self-connection, shifted-softplus and abs activations, float32 models, the ZBL pair potential (with and without
  cells), categorical graph-field embeddings (total charge and spin, batched and not);
  ``PresetNequIPGNNModel`` (S and M, shrunk), ``FullNequIPGNNModel`` with per-layer irreps, ``ZBLPairPotential``,
  ``CompileGraphModel`` on one frame (its eager short-circuit), ``PartialForceOutput`` (a Jacobian), models changed by
  ``nequip.model.modify`` (new per-type shifts, derivatives switched off), a custom ``@model_builder`` model with a
  vector-field embedding and an atomwise linear layer, ``ListInputOutputWrapper``,
  ``ListInputOutputStateDictWrapper`` and ``DictInputOutputWrapper`` (the flat-tensor interfaces nequip exports,
  compiles and loads; the loaded AOTInductor artifact stood in by the eager model), and the LAMMPS ML-IAP path as
  ``NequIPLAMMPSMLIAPWrapper.compute_forces`` runs it (the model modified for ghost exchange and without derivatives,
  edge vectors to local and ghost atoms, edge forces by ``autograd.grad``; LAMMPS's data object stood in by a bench
  class), with the exchange and, for a one-layer model, without;
- ``TRAIN``: Lightning steps without a trainer (``training_step``, ``backward``, the optimizer step), keeping the
  model in train mode: ``NequIPLightningModule`` with ``EnergyForceLoss`` (per-atom or total energy, per-type force
  coefficients), ``EnergyForceStressLoss`` (NaN stress labels ignored), ``EnergyOnlyLoss``, training metrics, a Huber
  and stratified Huber loss, MAE/RMSE/max-error coefficients; ``EMALightningModule`` (``optimizer_step`` and the EMA
  update), ``ConFIGLightningModule`` (its conflict-free gradient solve, least squares and pseudo-inverse, with
  clipping), ``ScheduleFreeLightningModule``, ``MuonWithAuxAdam`` on ``MuonParamGroups``; ``validation_step`` and
  ``test_step`` with their metrics; the optimizer on its own and its Newton-Schulz and Adam updates; ``EMAWeights``;
- ``METRICS``: ``MetricsManager`` losses and metrics on prediction and target dictionaries (per type, NaNs ignored,
  ``compute``), the metric classes, data statistics (``Mean``, ``StandardDeviation`` ... and the
  ``DataStatisticsManager`` collections, per node and per edge type) and the field modifiers;
- ``LAYERS``: each module of a built model on the dictionary its predecessors produce (type embedding with
  categorical fields, spherical harmonics with and without cells, edge-length normalizer, Bessel encoding, factor,
  first and later convolution layers, interaction blocks, readout, scale-shift variants, reductions, pair
  potentials), and modules built by hand (``AtomwiseLinear``, ``AtomwiseOperation``, ``AtomwiseReduce`` variants,
  ``Concat``, ``SaveForOutput``, ``AddRadialCutoffToData``, ``PolynomialCutoff``, ``ScalarMLPFunction`` with bias,
  normal init, spectral, weight and orthogonal parametrizations, deep linear; ``AvgNumNeighborsNorm``,
  ``TensorProductScatter``, ``AppendVectorFieldEmbed``, ``SimpleLennardJones``, ``LennardJones`` in its three styles,
  trainable and per-type parameters);
- ``FUNCTIONS``: ``scatter``, ``with_edge_vectors_`` (cells batched and not), ``with_edge_type_``, the
  ``AtomicDataDict`` helpers (``with_batch_``, ``batched_from_list``, ``frame_from_batched``, ``without_nodes``),
  irreps layout conversions, ``from_dict``;
- ``TRANSFORMS``: the data transforms (stress and virial, NaN stress, non-periodic cells, species to types, neighbour
  lists through matscipy for one frame and ASE for periodic batches, sorted, pruned per edge type, dataset index) and
  the ASE calculator's model call.

Left out: TorchSim (``torch_sim`` is not installed), the CUDA kernels (OpenEquivariance, CuEquivariance), the
ML-IAP wrapper class itself (it imports LAMMPS), saved-model loading and packaging (they need files),
``CompileGraphModel`` on batches (it traces and compiles its own graph with ``make_fx``), and ``LennardJones`` as a
model's pair potential: its per-edge energies come out one dimension too many, and adding them to the per-atom energies
raises in this version (on its own, before any per-atom energy exists, it runs). ``set_global_state()`` runs first,
as ``nequip-train`` does (float64 default dtype, Dynamo's scalar and dynamic-shape capture on). Random weights, nothing
downloaded; ``names()`` needs no torch, ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
TYPES = ["H", "C", "O"]
R_MAX = 2.5
FRAMES, ATOMS = 2, 4
SHIFTS = {"H": -0.5, "C": -1.5, "O": -2.0}
SCALES = {"H": 0.8, "C": 1.2, "O": 1.0}
BASE: dict[str, Any] = {"seed": 1, "model_dtype": "float64", "type_names": TYPES, "r_max": R_MAX, "num_layers": 2,
                        "l_max": 1, "num_features": 4, "radial_mlp_width": 8, "num_bessels": 4,
                        "avg_num_neighbors": 3.0, "per_type_energy_scales": 1.0, "per_type_energy_shifts": SHIFTS}
ZBL: dict[str, Any] = {"_target_": "nequip.nn.pair_potential.ZBL", "units": "metal", "chemical_species": TYPES}
LJ: dict[str, Any] = {"_target_": "nequip.nn.pair_potential.LennardJones", "lj_sigma": 0.6, "lj_epsilon": 0.1}
CUTOFFS: dict[str, Any] = {"H": 2.0, "C": {"H": 2.2, "O": 1.8}}
CHARGE: list[dict[str, Any]] = [{"field": "charge", "num_features": 2, "min": -1, "max": 1},
                                {"field": "spin", "num_features": 2, "min": 0, "max": 2, "init": "uniform"}]

# Data kinds: "batch" (two frames, batch keys), "batch.cell" (periodic cells, cell shifts), "frame" (one frame, no
# batch keys), "frame.cell", "edge_vectors" (atom types, edges and their vectors, no positions), "batch.charge" and
# "frame.charge" (total charge and spin per frame).
# Whole model -> (builder, keywords over ``BASE``, data kind). Builders: "nequip" (``NequIPGNNModel``), "preset",
# "full" (``FullNequIPGNNModel``, keywords replacing the per-layer ones), "zbl" (``ZBLPairPotential``), "compile"
# (``compile_mode="compile"``), "partial" (``PartialForceOutput``), "modify_shifts", "modify_off", "custom",
# "list", "list_state", "dict" (the flat-tensor wrappers), "mliap" and "mliap_no_ghosts" (the LAMMPS ML-IAP path).
FULL: dict[str, tuple[str, dict[str, Any], str]] = {
    "NequIPGNNModel": ("nequip", {}, "batch"),
    "NequIPGNNModel.no_parity": ("nequip", {"parity": False}, "batch"),
    "NequIPGNNModel.l_max0": ("nequip", {"l_max": 0}, "batch"),
    "NequIPGNNModel.l_max2": ("nequip", {"l_max": 2, "parity": False}, "batch"),
    "NequIPGNNModel.l_max2.parity.num_features_list": ("nequip", {"l_max": 2, "num_features": [4, 2, 2]}, "batch"),
    "NequIPGNNModel.layers1": ("nequip", {"num_layers": 1}, "batch"),
    "NequIPGNNModel.layers3": ("nequip", {"num_layers": 3}, "batch"),
    "NequIPGNNModel.radial_mlp_depth2": ("nequip", {"radial_mlp_depth": 2, "type_embed_num_features": 6}, "batch"),
    "NequIPGNNModel.energy_only": ("nequip", {"do_derivatives": False}, "batch"),
    "NequIPGNNModel.cell": ("nequip", {}, "batch.cell"),
    "NequIPGNNModel.frame": ("nequip", {}, "frame"),
    "NequIPGNNModel.frame.cell": ("nequip", {}, "frame.cell"),
    "NequIPGNNModel.edge_vectors": ("nequip", {}, "edge_vectors"),
    "NequIPGNNModel.per_edge_type_cutoff": ("nequip", {"per_edge_type_cutoff": CUTOFFS}, "batch"),
    "NequIPGNNModel.avg_num_neighbors_per_type": ("nequip", {"avg_num_neighbors": {"H": 3.0, "C": 2.5, "O": 2.0}},
                                                  "batch"),
    "NequIPGNNModel.per_type_scales_shifts": ("nequip", {"per_type_energy_scales": SCALES}, "batch"),
    "NequIPGNNModel.trainable_scales_shifts": ("nequip", {"per_type_energy_scales_trainable": True,
                                                          "per_type_energy_shifts_trainable": True}, "batch"),
    "NequIPGNNModel.no_scales_shifts": ("nequip", {"per_type_energy_scales": None, "per_type_energy_shifts": None},
                                        "batch"),
    "NequIPGNNModel.shifts_only": ("nequip", {"per_type_energy_scales": None, "per_type_energy_shifts": -1.0},
                                   "batch"),
    "NequIPGNNModel.readout_hidden": ("nequip", {"readout_mlp_hidden_layers_depth": 1,
                                                 "readout_mlp_hidden_layers_width": 8,
                                                 "readout_mlp_nonlinearity": "mish"}, "batch"),
    "NequIPGNNModel.readout_deep_linear": ("nequip", {"readout_mlp_hidden_layers_depth": 2,
                                                      "readout_mlp_hidden_layers_width": 8,
                                                      "readout_mlp_nonlinearity": None}, "batch"),
    "NequIPGNNModel.bessel_trainable": ("nequip", {"bessel_trainable": True, "polynomial_cutoff_p": 4}, "batch"),
    "NequIPGNNModel.norm_nonlinearity": ("nequip", {"convnet_nonlinearity_type": "norm"}, "batch"),
    "NequIPGNNModel.resnet": ("nequip", {"convnet_resnet": True, "num_layers": 3}, "batch"),
    "NequIPGNNModel.learnable_shift": ("nequip", {"learnable_shift": True}, "batch"),
    "NequIPGNNModel.no_sc": ("nequip", {"convnet_sc": False}, "batch"),
    "NequIPGNNModel.ssp_abs": ("nequip", {"convnet_nonlinearity_scalars": {"e": "ssp", "o": "abs"},
                                          "convnet_nonlinearity_gates": {"e": "ssp", "o": "abs"}}, "batch"),
    "NequIPGNNModel.float32": ("nequip", {"model_dtype": "float32"}, "batch"),
    "NequIPGNNModel.float32.cell": ("nequip", {"model_dtype": "float32"}, "batch.cell"),
    "NequIPGNNModel.zbl": ("nequip", {"pair_potential": ZBL}, "batch"),
    "NequIPGNNModel.zbl.cell": ("nequip", {"pair_potential": ZBL}, "batch.cell"),
    "NequIPGNNModel.categorical": ("nequip", {"categorical_graph_field_embed": CHARGE}, "batch.charge"),
    "NequIPGNNModel.categorical.frame": ("nequip", {"categorical_graph_field_embed": CHARGE[:1]}, "frame.charge"),
    "PresetNequIPGNNModel.S": ("preset", {"preset": "S"}, "batch"),
    "PresetNequIPGNNModel.M": ("preset", {"preset": "m", "num_features": [4, 2, 2]}, "batch.cell"),
    "FullNequIPGNNModel": ("full", {}, "batch"),
    "FullNequIPGNNModel.mixed_layers": ("full", {"feature_irreps_hidden": ["4x0e + 2x1o + 1x2e", "2x0e + 2x1e",
                                                                             "4x0e"],
                                                 "radial_mlp_depth": [1, 2, 1], "radial_mlp_width": [8, 4, 8],
                                                 "irreps_edge_sh": 2}, "batch"),
    "ZBLPairPotential": ("zbl", {}, "batch"),
    "ZBLPairPotential.per_edge_type_cutoff.cell": ("zbl", {"per_edge_type_cutoff": CUTOFFS}, "batch.cell"),
    "CompileGraphModel.frame": ("compile", {}, "frame"),
    "PartialForceOutput": ("partial", {}, "frame"),
    "modify.modify_PerTypeScaleShift": ("modify_shifts", {}, "batch"),
    "modify.disable_ForceStressOutput": ("modify_off", {}, "batch"),
    "model_builder.custom": ("custom", {}, "batch.charge"),
    "ListInputOutputWrapper": ("list", {}, "batch"),
    "ListInputOutputStateDictWrapper": ("list_state", {}, "batch.cell"),
    "DictInputOutputWrapper.energy_only": ("dict", {"do_derivatives": False}, "batch"),
    "lammps_mliap.ghost_exchange": ("mliap", {}, "mliap"),
    "lammps_mliap.no_ghost_exchange": ("mliap_no_ghosts", {}, "mliap"),
}

LOSS_EF: dict[str, Any] = {"_target_": "nequip.train.EnergyForceLoss"}
# Training step -> (Lightning module, model keywords over ``BASE``, loss config, extra module keywords, data kind).
# Modules: "nequip", "ema", "config", "schedulefree", "muon"; "validation" and "test" run those steps instead.
TRAIN: dict[str, tuple[str, dict[str, Any], dict[str, Any], dict[str, Any], str]] = {
    "train.EnergyForceLoss": ("nequip", {}, LOSS_EF, {}, "batch"),
    "train.EnergyForceLoss.total_energy": ("nequip", {}, {**LOSS_EF, "per_atom_energy": False}, {}, "batch"),
    "train.EnergyForceLoss.per_type_forces": ("nequip", {}, {**LOSS_EF, "per_type_forces_coeffs": {
        "H": 2.0, "C": 1.0, "O": 0.5}}, {}, "batch"),
    "train.EnergyForceStressLoss": ("nequip", {}, {"_target_": "nequip.train.EnergyForceStressLoss"}, {},
                                    "batch.cell"),
    "train.EnergyForceStressLoss.ignore_nan": ("nequip", {}, {"_target_": "nequip.train.EnergyForceStressLoss",
                                                              "ignore_nan": {"stress": True}}, {}, "batch.cell.nan"),
    "train.EnergyOnlyLoss": ("nequip", {"do_derivatives": False}, {"_target_": "nequip.train.EnergyOnlyLoss"}, {},
                             "batch"),
    "train.train_metrics": ("nequip", {}, LOSS_EF, {"train_metrics": {"_target_": "nequip.train.EnergyForceMetrics"}},
                            "batch"),
    "train.huber": ("nequip", {}, {"_target_": "nequip.train.MetricsManager", "metrics": [
        {"field": "total_energy", "coeff": 1.0, "metric": {"_target_": "nequip.train.HuberLoss", "delta": 0.1}},
        {"field": "forces", "coeff": 2.0, "metric": {"_target_": "nequip.train.StratifiedHuberForceLoss",
                                                     "delta_dict": {0.3: 0.1, 1.0: 0.05}}}]}, {}, "batch"),
    "train.mae_rmse_maxabs": ("nequip", {}, {"_target_": "nequip.train.MetricsManager", "metrics": [
        {"field": {"_target_": "nequip.data.PerAtomModifier", "field": "total_energy"}, "coeff": 1.0,
         "metric": {"_target_": "nequip.train.MeanAbsoluteError"}},
        {"field": "forces", "coeff": 1.0, "metric": {"_target_": "nequip.train.RootMeanSquaredError"}},
        {"field": "forces", "name": "forces_max", "metric": {"_target_": "nequip.train.MaximumAbsoluteError"}}]},
        {}, "batch"),
    "train.ema": ("ema", {}, LOSS_EF, {"ema_decay": 0.99}, "batch"),
    "train.config": ("config", {}, LOSS_EF, {}, "batch"),
    "train.config.pinv.clip": ("config", {}, {"_target_": "nequip.train.EnergyForceStressLoss"},
                               {"lsqr": False, "gradient_clip_val": 1.0}, "batch.cell"),
    "train.schedulefree": ("schedulefree", {}, LOSS_EF, {}, "batch"),
    "train.muon": ("muon", {}, LOSS_EF, {}, "batch"),
    "validation_step": ("validation", {}, LOSS_EF, {"val_metrics": {"_target_": "nequip.train.EnergyForceMetrics"}},
                        "batch"),
    "test_step": ("test", {}, LOSS_EF, {"test_metrics": {"_target_": "nequip.train.EnergyForceStressMetrics",
                                                         "ignore_nan": {"stress": True}}}, "batch.cell.nan"),
}
OPTIM = ("MuonWithAuxAdam.step", "muon.zeropower_via_newtonschulz5", "muon.muon_update.e3nn_reshaping",
         "muon.adam_update", "EMAWeights.update_parameters", "EMAWeights.swap_parameters")

# Metrics: a ``MetricsManager`` wrapper (name -> (factory, keywords, what runs: "forward" or "compute")), the metric
# and statistics classes, the statistics managers and the modifiers.
MANAGERS: dict[str, tuple[str, dict[str, Any], str]] = {
    "MetricsManager.EnergyForceLoss": ("EnergyForceLoss", {}, "forward"),
    "MetricsManager.EnergyForceLoss.per_type": ("EnergyForceLoss", {"per_type_forces_coeffs": {
        "H": 1.0, "C": 2.0, "O": 3.0}}, "forward"),
    "MetricsManager.EnergyForceMetrics.compute": ("EnergyForceMetrics", {}, "compute"),
    "MetricsManager.EnergyForceStressLoss.ignore_nan": ("EnergyForceStressLoss", {"ignore_nan": {"stress": True}},
                                                        "forward"),
    "MetricsManager.EnergyForceStressMetrics": ("EnergyForceStressMetrics", {}, "forward"),
    "MetricsManager.EnergyOnlyMetrics.compute": ("EnergyOnlyMetrics", {}, "compute"),
    "MetricsManager.per_type.ignore_nan": ("custom", {}, "forward"),
    "MetricsManager.per_type.compute": ("custom", {}, "compute"),
}
METRIC_CLASSES = ("MeanAbsoluteError", "MeanSquaredError", "RootMeanSquaredError", "MaximumAbsoluteError",
                  "HuberLoss", "HuberLoss.sum", "StratifiedHuberForceLoss")
STATS = ("Mean", "MeanAbsolute", "RootMeanSquare", "StandardDeviation", "StandardDeviation.squared.biased",
         "Max.abs", "Min", "Count")
STATS_MANAGERS = ("CommonDataStatisticsManager", "EnergyOnlyDataStatisticsManager",
                  "DataStatisticsManager.per_edge_type.ignore_nan")
MODIFIERS = ("PerAtomModifier", "PerAtomModifier.factor", "MappedFieldModifier", "EdgeLengths", "NumNeighbors")

# A module of a built model -> (model keywords over ``BASE``, its path in the energy model, data kind).
MODEL_LAYERS: dict[str, tuple[dict[str, Any], str, str]] = {
    "layer.NodeTypeEmbed": ({}, "type_embed", "batch"),
    "layer.NodeTypeEmbed.categorical": ({"categorical_graph_field_embed": CHARGE}, "type_embed", "batch.charge"),
    "layer.NodeTypeEmbed.categorical.frame": ({"categorical_graph_field_embed": CHARGE}, "type_embed",
                                              "frame.charge"),
    "layer.SphericalHarmonicEdgeAttrs": ({}, "spharm", "batch"),
    "layer.SphericalHarmonicEdgeAttrs.cell": ({}, "spharm", "batch.cell"),
    "layer.SphericalHarmonicEdgeAttrs.frame.cell.l_max3": ({"l_max": 3}, "spharm", "frame.cell"),
    "layer.EdgeLengthNormalizer": ({}, "edge_norm", "batch"),
    "layer.EdgeLengthNormalizer.per_edge_type": ({"per_edge_type_cutoff": CUTOFFS}, "edge_norm", "batch"),
    "layer.BesselEdgeLengthEncoding": ({}, "bessel_encode", "batch"),
    "layer.BesselEdgeLengthEncoding.trainable": ({"bessel_trainable": True}, "bessel_encode", "batch"),
    "layer.ApplyFactor": ({}, "factor", "batch"),
    "layer.ConvNetLayer.first": ({}, "layer0_convnet", "batch"),
    "layer.ConvNetLayer": ({"num_layers": 3}, "layer1_convnet", "batch"),
    "layer.ConvNetLayer.resnet": ({"num_layers": 3, "convnet_resnet": True}, "layer1_convnet", "batch"),
    "layer.ConvNetLayer.norm": ({"num_layers": 3, "convnet_nonlinearity_type": "norm"}, "layer1_convnet", "batch"),
    "layer.InteractionBlock": ({"num_layers": 3}, "layer1_convnet.conv", "batch"),
    "layer.InteractionBlock.per_type_norm": ({"avg_num_neighbors": {"H": 3.0, "C": 2.5, "O": 2.0}},
                                             "layer0_convnet.conv", "batch"),
    "layer.ScalarMLP": ({"readout_mlp_hidden_layers_depth": 1}, "per_atom_energy_readout", "batch"),
    "layer.PerTypeScaleShift": ({}, "per_type_energy_scale_shift", "batch"),
    "layer.PerTypeScaleShift.per_type.trainable": ({"per_type_energy_scales": SCALES,
                                                   "per_type_energy_scales_trainable": True},
                                                  "per_type_energy_scale_shift", "batch"),
    "layer.PerTypeScaleShift.none.float32": ({"per_type_energy_scales": None, "per_type_energy_shifts": None,
                                              "model_dtype": "float32"}, "per_type_energy_scale_shift", "batch"),
    "layer.PerTypeScaleShift.scales_only": ({"per_type_energy_scales": SCALES, "per_type_energy_shifts": None},
                                            "per_type_energy_scale_shift", "batch"),
    "layer.AtomwiseReduce": ({}, "total_energy_sum", "batch"),
    "layer.AtomwiseReduce.frame": ({}, "total_energy_sum", "frame"),
    "layer.ZBL": ({"pair_potential": ZBL}, "pair_potential", "batch"),
}
STANDALONE = ("AtomwiseLinear", "AtomwiseOperation", "AtomwiseReduce.normalized_sum",
              "AtomwiseReduce.mean.frame", "Concat", "SaveForOutput", "AddRadialCutoffToData", "PolynomialCutoff",
              "ScalarMLPFunction", "ScalarMLPFunction.bias.normal_init", "ScalarMLPFunction.spectral_norm",
              "ScalarMLPFunction.weight_norm", "ScalarMLPFunction.orthogonal", "ScalarMLPFunction.deep_linear",
              "ScalarMLPFunction.ssp", "AvgNumNeighborsNorm", "AvgNumNeighborsNorm.per_type",
              "TensorProductScatter", "AppendVectorFieldEmbed.graph", "AppendVectorFieldEmbed.graph.frame",
              "AppendVectorFieldEmbed.node.features_only", "SimpleLennardJones", "LennardJones",
              "LennardJones.repulsive.trainable", "LennardJones.repulsive_only.per_type")
FUNCTIONS = ("scatter", "scatter.no_dim_size", "scatter.out", "with_edge_vectors_", "with_edge_vectors_.cell",
             "with_edge_vectors_.frame.cell", "with_edge_vectors_.given_vectors", "with_edge_type_",
             "AtomicDataDict.with_batch_", "AtomicDataDict.batched_from_list", "AtomicDataDict.frame_from_batched",
             "AtomicDataDict.without_nodes.index", "AtomicDataDict.without_nodes.mask", "mul_ir_to_ir_mul",
             "ir_mul_to_mul_ir", "from_dict")
TRANSFORMS = ("VirialToStressTransform", "StressSignFlipTransform", "AddNaNStressTransform",
              "NonPeriodicCellTransform", "NonPeriodicCellTransform.override", "ChemicalSpeciesToAtomTypeMapper",
              "ChemicalSpeciesToAtomTypeMapper.custom_map", "NeighborListTransform",
              "NeighborListTransform.ase.cell", "NeighborListTransform.per_edge_type", "SortedNeighborListTransform",
              "NeighborListPruneTransform", "DatasetIndexTransform", "compute_neighborlist_",
              "NequIPCalculator.call_model")


def names() -> list[str]:
    return (list(FULL) + list(TRAIN) + list(OPTIM) + list(MANAGERS) + [f"metric.{n}" for n in METRIC_CLASSES]
            + [f"stats.{n}" for n in STATS] + list(STATS_MANAGERS) + [f"modifier.{n}" for n in MODIFIERS]
            + list(MODEL_LAYERS) + [f"layer.{n}" for n in STANDALONE] + [f"fn.{n}" for n in FUNCTIONS]
            + [f"transform.{n}" for n in TRANSFORMS])


def _gen(seed: int) -> Any:
    import torch

    return torch.Generator().manual_seed(seed)


def _data(kind: str, targets: bool = False) -> dict[str, Any]:
    """An ``AtomicDataDict``: ``FRAMES`` frames of ``ATOMS`` atoms (one for the "frame" kinds), every other atom of a
    frame a neighbour; with ``targets``, energy, force (and stress) labels, one frame's stress NaN for ".nan"."""
    import torch
    from nequip.data import AtomicDataDict as D

    gen = _gen(5)
    frames = 1 if kind.startswith("frame") or kind == "edge_vectors" else FRAMES
    n = frames * ATOMS
    pos = torch.rand(n, 3, generator=gen, dtype=torch.float64) * 1.6
    types = torch.tensor([0, 1, 2, 1, 0, 2, 1, 1][:n])
    edges = torch.tensor([(i, j) for i in range(n) for j in range(n) if i != j and i // ATOMS == j // ATOMS]).T
    data: dict[str, Any] = {D.POSITIONS_KEY: pos, D.ATOM_TYPE_KEY: types, D.EDGE_INDEX_KEY: edges.contiguous()}
    if frames > 1:
        data[D.BATCH_KEY] = torch.arange(frames).repeat_interleave(ATOMS)
        data[D.NUM_NODES_KEY] = torch.full((frames,), ATOMS)
    if ".cell" in kind:
        data[D.CELL_KEY] = torch.eye(3, dtype=torch.float64).expand(frames, 3, 3) * 3.0 + 0.1 * torch.rand(
            frames, 3, 3, generator=gen, dtype=torch.float64)
        data[D.PBC_KEY] = torch.ones(frames, 3, dtype=torch.bool)
        data[D.EDGE_CELL_SHIFT_KEY] = torch.randint(-1, 2, (edges.shape[1], 3), generator=gen).to(torch.float64)
        data[D.EDGE_CELL_SHIFT_KEY][: edges.shape[1] // 2] = 0.0
    if kind.endswith(".charge"):
        data[D.TOTAL_CHARGE_KEY] = torch.tensor([[0], [-1]][:frames])
        data[D.TOTAL_SPIN_KEY] = torch.tensor([[1], [2]][:frames])
    if kind == "edge_vectors":
        data[D.EDGE_VECTORS_KEY] = pos[edges[1]] - pos[edges[0]]
        del data[D.POSITIONS_KEY]
    if targets:
        data[D.TOTAL_ENERGY_KEY] = torch.randn(frames, 1, generator=gen, dtype=torch.float64)
        data[D.FORCE_KEY] = torch.randn(n, 3, generator=gen, dtype=torch.float64)
        stress = torch.randn(frames, 3, 3, generator=gen, dtype=torch.float64)
        data[D.STRESS_KEY] = stress + stress.transpose(1, 2)
        if kind.endswith(".nan"):
            data[D.STRESS_KEY][0] = float("nan")
    return data


def _setup() -> None:
    from nequip.utils.global_state import set_global_state

    set_global_state()


def _evaluate(model: Any, entries: list[Any] | None = None) -> Any:
    """A bench module calling ``model`` on a fresh copy of the dictionary (modules write into it), with gradients
    enabled (forces and stress are derivatives of the energy, in eval mode too)."""
    import torch

    from gt_calls import Run

    def evaluate(owner: Any, data: dict[str, Any]) -> Any:
        with torch.enable_grad():
            return owner(dict(data))

    return Run(model, evaluate, entries or [type(model)])


def _model(builder: str, keywords: dict[str, Any]) -> Any:
    """A whole model from one of ``FULL``'s builders."""
    from nequip.model import FullNequIPGNNModel, NequIPGNNModel, PresetNequIPGNNModel, ZBLPairPotential, modify

    if builder == "nequip":
        return NequIPGNNModel(**{**BASE, **keywords})
    if builder == "preset":
        base = {k: v for k, v in BASE.items() if k not in ("num_layers", "l_max", "num_features")}
        return PresetNequIPGNNModel(**{**base, "num_features": [4, 4], "type_embed_num_features": 4,
                                       "radial_mlp_width": 8, "num_layers": 2, **keywords})
    if builder == "full":
        layers = {"feature_irreps_hidden": ["4x0e + 2x1o", "2x0e + 2x1o", "4x0e"], "radial_mlp_depth": [1, 1, 2],
                  "radial_mlp_width": [8, 8, 4], "irreps_edge_sh": "1x0e + 1x1o", "type_embed_num_features": 4}
        base = {k: v for k, v in BASE.items() if k not in ("num_layers", "l_max", "num_features", "radial_mlp_width")}
        return FullNequIPGNNModel(**{**base, **layers, **keywords})
    if builder == "zbl":
        return ZBLPairPotential(seed=1, model_dtype="float64", type_names=TYPES, r_max=R_MAX, chemical_species=TYPES,
                                units="real", **keywords)
    if builder == "compile":
        return NequIPGNNModel(**{**BASE, "compile_mode": "compile"})
    if builder == "modify_shifts":
        return modify(NequIPGNNModel(**BASE), [{"modifier": "modify_PerTypeScaleShift", "shifts": {"H": 0.3},
                                                "scales": 2.0, "shifts_trainable": True}])
    if builder == "modify_off":
        return modify(NequIPGNNModel(**BASE), [{"modifier": "disable_ForceStressOutput"}])
    if builder == "partial":
        from nequip.nn import GraphModel, PartialForceOutput

        energy = NequIPGNNModel(**{**BASE, "do_derivatives": False}).model.func
        return GraphModel(PartialForceOutput(energy), model_input_fields=energy.irreps_in)
    if builder == "custom":
        return _custom_model()
    raise KeyError(builder)


def _custom_model() -> Any:
    """A model of one's own, as the docs teach: a ``@model_builder`` function assembling nequip's modules (a type
    embedding, categorical charge, a vector-field embedding of the spin ... here the polarization)."""
    from nequip.data import AtomicDataDict as D
    from nequip.model import model_builder
    from nequip.nn import AtomwiseLinear, AtomwiseReduce, ConvNetLayer, ForceStressOutput, ScalarMLP
    from nequip.nn import SequentialGraphNetwork
    from nequip.nn.embedding import (AppendVectorFieldEmbed, BesselEdgeLengthEncoding, EdgeLengthNormalizer,
                                     NodeTypeEmbed, PolynomialCutoff, SphericalHarmonicEdgeAttrs)

    @model_builder
    def CustomModel(r_max: float, type_names: list[str]) -> Any:  # noqa: N802 (named as nequip's builders are)
        modules: dict[str, Any] = {"embed": NodeTypeEmbed(type_names=type_names, num_features=4,
                                                          type_embed_init="near_zero",
                                                          categorical_graph_field_embed=CHARGE[:1],
                                                          irreps_in={D.POLARIZATION_KEY: "1o"})}
        modules["vector"] = AppendVectorFieldEmbed({D.POLARIZATION_KEY: -1}, l_max=1,
                                                   irreps_in=modules["embed"].irreps_out)
        modules["sh"] = SphericalHarmonicEdgeAttrs(1, irreps_in=modules["vector"].irreps_out)
        modules["norm"] = EdgeLengthNormalizer(r_max=r_max, type_names=type_names, irreps_in=modules["sh"].irreps_out)
        modules["radial"] = BesselEdgeLengthEncoding(PolynomialCutoff(5), num_bessels=4,
                                                     irreps_in=modules["norm"].irreps_out)
        modules["linear"] = AtomwiseLinear(irreps_in=modules["radial"].irreps_out, irreps_out="4x0e + 2x1o")
        modules["conv"] = ConvNetLayer(modules["linear"].irreps_out, "4x0e", convolution_kwargs={
            "radial_mlp_width": 8, "avg_num_neighbors": 3.0, "type_names": type_names})
        modules["readout"] = ScalarMLP(1, out_field=D.PER_ATOM_ENERGY_KEY, irreps_in=modules["conv"].irreps_out)
        modules["sum"] = AtomwiseReduce(D.PER_ATOM_ENERGY_KEY, D.TOTAL_ENERGY_KEY,
                                        irreps_in=modules["readout"].irreps_out)
        return ForceStressOutput(SequentialGraphNetwork(modules))

    return CustomModel(seed=2, model_dtype="float64", type_names=TYPES, r_max=R_MAX)


def _full(name: str) -> Built:
    import torch
    from nequip.data import AtomicDataDict as D

    from gt_calls import Run

    builder, keywords, kind = FULL[name]
    if builder.startswith("mliap"):
        return _mliap(builder == "mliap")
    model = _model(builder if builder in ("nequip", "custom", "preset", "full", "zbl", "compile", "partial")
                   or builder.startswith("modify") else "nequip", keywords)
    data = _data(kind)
    if builder == "custom":
        data[D.POLARIZATION_KEY] = torch.randn(FRAMES, 3, generator=_gen(7), dtype=torch.float64)
    if builder == "dict":
        from nequip.nn.compile import DictInputOutputWrapper, ListInputOutputWrapper

        inputs = [k for k in data if k in model.model_input_fields]
        outputs = [D.TOTAL_ENERGY_KEY, D.PER_ATOM_ENERGY_KEY]
        flat = ListInputOutputWrapper(model.model, inputs, outputs)
        # What ``load_compiled_model`` wraps is an AOTInductor artifact taking a list; the eager model stands in.
        listed = Run(flat, lambda owner, tensors: owner(*tensors), [ListInputOutputWrapper])
        wrapper = DictInputOutputWrapper(listed, inputs, outputs)
        return Run(wrapper, lambda owner, d: owner(dict(d)), [DictInputOutputWrapper]), (data,), {}
    if builder in ("list", "list_state"):
        from nequip.nn.compile import ListInputOutputStateDictWrapper, ListInputOutputWrapper

        inputs = [k for k in data if k in model.model_input_fields]
        outputs = [D.TOTAL_ENERGY_KEY, D.FORCE_KEY, D.VIRIAL_KEY, D.PER_ATOM_ENERGY_KEY]
        if builder == "list":
            wrapper = ListInputOutputWrapper(model.model, inputs, outputs)
            extra: list[Any] = []
        else:
            names_ = [n for n, _ in model.model.named_parameters()] + [n for n, _ in model.model.named_buffers()]
            wrapper = ListInputOutputStateDictWrapper(model.model, inputs, outputs, names_)
            extra = [p.detach().clone() for p in model.model.parameters()] + list(model.model.buffers())

        def flat(owner: Any, *tensors: Any) -> Any:
            with torch.enable_grad():
                return owner(*tensors)

        return Run(wrapper, flat, [type(wrapper)]), tuple(data[k] for k in inputs) + tuple(extra), {}
    return _evaluate(model), (data,), {}


class _LAMMPSData:
    """A stand-in for LAMMPS ML-IAP's data object (no LAMMPS here): the local and total atom counts, and the ghost
    exchange, which fills each ghost atom's row with that of the local atom it images (and adds it back in reverse)."""

    def __init__(self, nlocal: int, images: Any) -> None:
        self.nlocal = nlocal
        self.ntotal = nlocal + len(images)
        self.images = images

    def forward_exchange(self, source: Any, target: Any, width: int) -> None:
        target.copy_(source)
        target[self.nlocal:] = source[self.images]

    def reverse_exchange(self, source: Any, target: Any, width: int) -> None:
        target.copy_(source)
        target[: self.nlocal].index_add_(0, self.images, source[self.nlocal:])
        target[self.nlocal:] = 0.0


def _mliap(ghost_exchange: bool) -> Built:
    """What ``NequIPLAMMPSMLIAPWrapper.compute_forces`` runs (the wrapper needs LAMMPS): the model modified as its
    ``_initialize_model`` does (ghost exchange enabled, derivatives off), called on edge vectors from local atoms to
    local and ghost ones, with the LAMMPS data object, then the edge forces by ``torch.autograd.grad``. Without
    ``ghost_exchange``, a one-layer model (a later layer would index the ghosts' features, which it no longer has)."""
    import torch
    from nequip.data import AtomicDataDict as D
    from nequip.model import NequIPGNNModel, modify

    from gt_calls import Run

    modifiers = [{"modifier": "disable_ForceStressOutput"}]
    if ghost_exchange:
        modifiers.insert(0, {"modifier": "enable_LAMMPSMLIAPGhostExchange"})
    model = modify(NequIPGNNModel(**{**BASE, "num_layers": 2 if ghost_exchange else 1}), modifiers)
    images = torch.tensor([0, 2])
    local = torch.rand(ATOMS, 3, generator=_gen(23), dtype=torch.float64) * 1.6
    pos = torch.cat([local, local[images] + torch.tensor([1.7, 0.0, 0.0], dtype=torch.float64)])
    types = torch.tensor([0, 1, 2, 1])[torch.cat([torch.arange(ATOMS), images])]
    edges = torch.tensor([(i, j) for i in range(ATOMS) for j in range(len(pos)) if i != j]).T.contiguous()
    lmp = _LAMMPSData(ATOMS, images)
    counts = torch.tensor([ATOMS, len(images)])

    def compute_forces(owner: Any, vectors: Any, edge_index: Any, atom_types: Any, ghosts: Any) -> Any:
        with torch.enable_grad():
            vectors = vectors.clone().requires_grad_(True)
            out = owner({D.EDGE_VECTORS_KEY: vectors, D.EDGE_INDEX_KEY: edge_index, D.ATOM_TYPE_KEY: atom_types,
                         D.LMP_MLIAP_DATA_KEY: lmp, D.NUM_LOCAL_GHOST_NODES_KEY: ghosts})
            forces = torch.autograd.grad([out[D.TOTAL_ENERGY_KEY].sum()], [vectors])[0]
        return out[D.PER_ATOM_ENERGY_KEY], forces

    return Run(model, compute_forces, [type(model)]), (pos[edges[1]] - pos[edges[0]], edges, types, counts), {}


def _lightning(module_kind: str, model_keywords: dict[str, Any], loss: dict[str, Any],
               extra: dict[str, Any]) -> Any:
    from nequip import train

    classes = {"ema": train.EMALightningModule, "config": train.ConFIGLightningModule,
               "schedulefree": train.ScheduleFreeLightningModule}
    optimizer: dict[str, Any] = {"_target_": "torch.optim.Adam", "lr": 1e-3}
    if module_kind == "schedulefree":
        optimizer = {"_target_": "schedulefree.AdamWScheduleFree", "lr": 1e-3}
    if module_kind == "muon":
        optimizer = {"_target_": "nequip.train.MuonWithAuxAdam", "param_groups": {
            "_target_": "nequip.model.MuonParamGroups", "muon": {"lr": 0.01, "weight_decay": 1e-5},
            "adam": {"lr": 1e-3}}}
    cls = classes.get(module_kind, train.NequIPLightningModule)
    return cls(model={"_target_": "nequip.model.NequIPGNNModel", **BASE, **model_keywords},
               num_datasets={"train": 1, "val": 1, "test": 1}, optimizer=optimizer, loss=loss, **extra)


def _train(name: str) -> Built:
    import torch
    from nequip.train import ConFIGLightningModule, EMALightningModule, NequIPLightningModule

    from gt_calls import Run

    module_kind, model_keywords, loss, extra, kind = TRAIN[name]
    module = _lightning(module_kind, model_keywords, loss, extra)
    batch = _data(kind, targets=True)
    if module_kind in ("validation", "test"):
        method = f"{module_kind}_step"
        return Run(module, lambda owner, b: getattr(owner, method)(dict(b), 0),
                   [getattr(NequIPLightningModule, method)]), (batch,), {}
    optimizer = module.configure_optimizers()

    class TrainStep(Run):
        """A training step keeps the Lightning module in train mode whatever the harness's mode (the forces must
        keep their graph for the loss to reach the weights)."""

        def train(self, mode: bool = True) -> TrainStep:
            super().train(mode)
            self.owner.train(True)
            return self

    if module_kind == "config":
        # The Trainer's hooks the manual optimization calls, stood in for (no Trainer here).
        module.optimizers = lambda: optimizer
        module.manual_backward = lambda loss_, *args, **kwargs: loss_.backward(*args, **kwargs)
        clip = extra.get("gradient_clip_val")
        module.clip_gradients = lambda opt, gradient_clip_val=None, gradient_clip_algorithm=None: (
            torch.nn.utils.clip_grad_norm_(module.parameters(), clip) if clip else None)

        def config_step(owner: Any, b: dict[str, Any]) -> Any:
            with torch.enable_grad():
                return owner.training_step(dict(b), 0).detach()

        return TrainStep(module, config_step, [ConFIGLightningModule.training_step,
                                               ConFIGLightningModule._ConFIG_backwards]), (batch,), {}
    if module_kind == "schedulefree":
        optimizer.train()

    def step(owner: Any, b: dict[str, Any]) -> Any:
        with torch.enable_grad():
            optimizer.zero_grad()
            loss_ = owner.training_step(dict(b), 0)
            loss_.backward()
            if module_kind == "ema":
                owner.optimizer_step(0, 0, optimizer)
            else:
                optimizer.step()
        return loss_.detach()

    entries: list[Any] = [NequIPLightningModule.training_step]
    if module_kind == "ema":
        entries.append(EMALightningModule.optimizer_step)
    if module_kind == "muon":
        entries.append(type(optimizer).step)
    return TrainStep(module, step, entries), (batch,), {}


def _optim(name: str) -> Built:
    import torch
    from nequip.model import MuonParamGroups
    from nequip.model import NequIPGNNModel
    from nequip.train import MuonWithAuxAdam, muon
    from nequip.train.ema import EMAWeights

    from gt_calls import Call, OptimizerStep, Run

    gen = _gen(9)
    if name == "muon.zeropower_via_newtonschulz5":
        return Call(muon.zeropower_via_newtonschulz5, steps=5), (torch.randn(6, 4, generator=gen),), {}
    if name == "muon.adam_update":
        grad, buf1, buf2 = (torch.randn(5, 3, generator=gen) for _ in range(3))
        return Call(muon.adam_update, step=2, betas=(0.9, 0.95), eps=1e-8), (grad, buf1, buf2.abs()), {}
    model = NequIPGNNModel(**BASE)
    if name == "muon.muon_update.e3nn_reshaping":
        linear = model.model.func.layer0_convnet.conv.linear_2
        reshaping = [(entry.slice_1D, entry.shape_2D) for entry in linear.weight_index_slices]
        grad = torch.randn(linear.weight.shape, generator=gen)
        return Call(muon.muon_update, ns_steps=3, e3nn_reshaping=reshaping), (grad, torch.zeros_like(grad)), {}
    if name.startswith("EMAWeights"):
        ema = EMAWeights(model, decay=0.99)
        if name == "EMAWeights.update_parameters":
            def update(owner: Any, noise: torch.Tensor) -> Any:
                with torch.no_grad():
                    next(model.parameters()).add_(noise)
                owner.update_parameters(model)
                return owner.ema_weights[0]

            return Run(ema, update, [EMAWeights.update_parameters]), \
                (torch.randn(next(model.parameters()).shape, generator=gen) * 1e-3,), {}

        def swap(owner: Any, scale: torch.Tensor) -> Any:
            owner.swap_parameters(model)
            return owner.ema_weights[0] * scale

        return Run(ema, swap, [EMAWeights.swap_parameters]), (torch.ones(()),), {}
    groups = MuonParamGroups(model, muon={"lr": 0.02, "weight_decay": 1e-4}, adam={"lr": 1e-3})
    optimizer = MuonWithAuxAdam(groups)
    grads = tuple(torch.randn(p.shape, generator=gen, dtype=p.dtype) for p in model.parameters())
    return OptimizerStep(model, optimizer), grads, {}


def _predictions(kind: str = "batch.cell.nan") -> tuple[dict[str, Any], dict[str, Any]]:
    """A prediction and a target dictionary with energies, forces and stresses (one target frame's stress NaN)."""
    import torch
    from nequip.data import AtomicDataDict as D

    target = _data(kind, targets=True)
    gen = _gen(11)
    preds = {k: v for k, v in target.items() if k in (D.ATOM_TYPE_KEY, D.NUM_NODES_KEY, D.BATCH_KEY, D.EDGE_INDEX_KEY)}
    for key in (D.TOTAL_ENERGY_KEY, D.FORCE_KEY, D.STRESS_KEY):
        preds[key] = target[key].nan_to_num(0.0) + 0.1 * torch.randn(target[key].shape, generator=gen,
                                                                     dtype=torch.float64)
    return preds, target


def _metrics(name: str) -> Built:
    from nequip import train
    from nequip.data import AtomicDataDict as D

    from gt_calls import Run

    preds, target = _predictions()
    if name in MANAGERS:
        factory, keywords, what = MANAGERS[name]
        if factory == "custom":
            manager = train.MetricsManager([
                {"field": D.FORCE_KEY, "metric": train.MeanSquaredError(), "coeff": 1.0, "per_type": True,
                 "ignore_nan": True},
                {"field": D.STRESS_KEY, "metric": train.MeanAbsoluteError(), "coeff": 0.5, "ignore_nan": True},
                {"field": D.FORCE_KEY, "name": "forces_per_type_mae", "metric": train.MeanAbsoluteError(),
                 "per_type": True, "per_type_coeffs": {"H": 1.0, "C": 0.5, "O": 2.0}}], type_names=TYPES)
        else:
            manager = getattr(train, factory)(type_names=TYPES, **keywords)

        def run(owner: Any, p: dict[str, Any], t: dict[str, Any]) -> Any:
            out = owner(p, t, prefix="train_loss_step/")
            return owner.compute(prefix="epoch/") if what == "compute" else out

        return Run(manager, run, [train.MetricsManager.forward] + (
            [train.MetricsManager.compute] if what == "compute" else [])), (preds, target), {}
    kind, item = name.split(".", 1)
    if kind == "metric":
        cls_name, _, variant = item.partition(".")
        keywords: dict[str, Any] = {"reduction": "sum"} if variant == "sum" else {}
        if cls_name == "StratifiedHuberForceLoss":
            keywords = {"delta_dict": {0.5: 0.2, 1.5: 0.1, 3.0: 0.05}}
        metric = getattr(train, cls_name)(**keywords)

        def measure(owner: Any, p: Any, t: Any) -> Any:
            return owner(p, t), owner.compute()

        return Run(metric, measure, [type(metric).update]), (preds[D.FORCE_KEY], target[D.FORCE_KEY]), {}
    if kind == "stats":
        from nequip.data import stats

        cls_name, _, variant = item.partition(".")
        keywords = {"squared": True, "unbiased": False} if variant == "squared.biased" else (
            {"abs": True} if variant == "abs" else {})
        stat = getattr(stats, cls_name)(**keywords)

        def accumulate(owner: Any, x: Any) -> Any:
            owner(x)
            return owner.compute()

        return Run(stat, accumulate, [type(stat).update]), (target[D.FORCE_KEY],), {}
    return _modifier(item, preds, target)


def _modifier(item: str, preds: dict[str, Any], target: dict[str, Any]) -> Built:
    from nequip.data import AtomicDataDict as D
    from nequip.data import modifier as modifiers

    from gt_calls import Call

    table: dict[str, Any] = {
        "PerAtomModifier": modifiers.PerAtomModifier(D.TOTAL_ENERGY_KEY),
        "PerAtomModifier.factor": modifiers.PerAtomModifier(D.TOTAL_ENERGY_KEY, factor=23.06),
        "MappedFieldModifier": modifiers.MappedFieldModifier(D.FORCE_KEY, D.DIPOLE_KEY),
        "EdgeLengths": modifiers.EdgeLengths(),
        "NumNeighbors": modifiers.NumNeighbors(),
    }
    modifier = table[item]
    if item.startswith("PerAtom") or item.startswith("Mapped"):
        target = {**target, D.DIPOLE_KEY: target[D.FORCE_KEY] * 0.5}
        call = Call(lambda p, t: modifier(p, t))
        call.entry_points = lambda: [type(modifier).__call__, type(modifier)._func]  # type: ignore[method-assign]
        return call, (preds, target), {}
    data = _data("batch")

    def one(d: dict[str, Any]) -> Any:
        return modifier(dict(d))

    call = Call(one)
    call.entry_points = lambda: [type(modifier)._func]  # type: ignore[method-assign]
    return call, (data,), {}


def _stats_manager(name: str) -> Built:
    import torch
    from nequip.data import AtomicDataDict as D
    from nequip.data import stats, stats_manager
    from nequip.data.modifier import EdgeLengths

    from gt_calls import Run

    data = _data("batch", targets=True)
    if name == "CommonDataStatisticsManager":
        manager = stats_manager.CommonDataStatisticsManager(type_names=TYPES)
    elif name == "EnergyOnlyDataStatisticsManager":
        manager = stats_manager.EnergyOnlyDataStatisticsManager(type_names=TYPES)
    else:
        data[D.FORCE_KEY][1, 0] = float("nan")
        manager = stats_manager.DataStatisticsManager([
            {"field": EdgeLengths(), "metric": stats.Mean(), "per_type": True, "name": "edge_len"},
            {"field": D.FORCE_KEY, "metric": stats.RootMeanSquare(), "per_type": True, "ignore_nan": True},
            {"field": D.FORCE_KEY, "metric": stats.Max(abs=True), "ignore_nan": True}], type_names=TYPES)

    def gather(owner: Any, d: dict[str, Any]) -> Any:
        owner(dict(d))
        return torch.as_tensor(0.0)

    return Run(manager, gather, [stats_manager.DataStatisticsManager.forward]), (data,), {}


def _prefix(model: Any, path: str, data: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """The module at ``path`` in ``model``'s energy network, and what the modules before it make of ``data``."""
    import torch

    energy = model.model.func
    first, _, rest = path.partition(".")
    out = {k: v for k, v in data.items() if k in model.model_input_fields}
    with torch.no_grad():
        for child_name, child in energy.named_children():
            if child_name == first:
                break
            out = child(out)
    module = energy.get_submodule(path)
    return module, {k: v.detach() for k, v in out.items()}


def _model_layer(name: str) -> Built:
    from nequip.model import NequIPGNNModel

    from gt_calls import Run

    keywords, path, kind = MODEL_LAYERS[name]
    model = NequIPGNNModel(**{**BASE, **keywords})
    module, data = _prefix(model, path, _data(kind))
    return Run(module, lambda owner, d: owner(dict(d)), [type(module)]), (data,), {}


def _graph_features(kind: str = "batch") -> tuple[dict[str, Any], dict[str, Any]]:
    """A built model's input to its first convolution (features, attributes, edge embeddings) and its irreps."""
    from nequip.model import NequIPGNNModel

    model = NequIPGNNModel(**BASE)
    module, data = _prefix(model, "layer0_convnet", _data(kind))
    return data, module.irreps_in


def _standalone(name: str) -> Built:
    import torch
    from e3nn import o3
    from nequip import nn as nnq
    from nequip.data import AtomicDataDict as D
    from nequip.nn import embedding, pair_potential
    from nequip.nn.mlp import ScalarMLPFunction

    from gt_calls import Run

    gen = _gen(13)
    kind = "frame" if name.endswith(".frame") else "batch"
    data, irreps = _graph_features(kind)
    scalars = torch.randn(2 * FRAMES * ATOMS, 6, generator=gen)

    def graph(module: Any, fresh: dict[str, Any] | None = None) -> Built:
        return Run(module, lambda owner, d: owner(dict(d)), [type(module)]), (fresh or data,), {}

    if name.startswith("ScalarMLPFunction"):
        variant = name.partition(".")[2]
        keywords: dict[str, Any] = {"hidden_layers_depth": 1, "hidden_layers_width": 8}
        keywords.update({"bias.normal_init": {"bias": True, "init_mode": "normal", "forward_weight_init": False},
                         "spectral_norm": {"parametrization": "spectral_norm"},
                         "weight_norm": {"parametrization": "weight_norm", "nonlinearity": "gelu"},
                         "orthogonal": {"parametrization": "orthogonal", "nonlinearity": "tanh"},
                         "deep_linear": {"hidden_layers_depth": 2, "nonlinearity": None},
                         "ssp": {"nonlinearity": "ssp"}}.get(variant, {}))
        return ScalarMLPFunction(6, 3, **keywords), (scalars,), {}
    if name == "PolynomialCutoff":
        return embedding.PolynomialCutoff(5), (torch.rand(20, 1, generator=gen) * 1.2,), {}
    if name == "AtomwiseLinear":
        return graph(nnq.AtomwiseLinear(irreps_in=irreps, out_field="linear_out", irreps_out="2x0e + 1x1o"))
    if name == "AtomwiseOperation":
        return graph(nnq.AtomwiseOperation(o3.Norm(irreps[D.EDGE_ATTRS_KEY]), D.EDGE_ATTRS_KEY, irreps_in=irreps))
    if name.startswith("AtomwiseReduce"):
        reduce = name.split(".")[1]
        return graph(nnq.AtomwiseReduce(D.NODE_FEATURES_KEY, reduce=reduce, avg_num_atoms=4.0, irreps_in=irreps))
    if name == "Concat":
        return graph(nnq.Concat([D.NODE_FEATURES_KEY, D.NODE_ATTRS_KEY], "cat", irreps_in=irreps))
    if name == "SaveForOutput":
        return graph(nnq.SaveForOutput(D.NODE_FEATURES_KEY, "saved_features", irreps_in=irreps))
    if name == "AddRadialCutoffToData":
        fresh = {k: v for k, v in data.items() if k != D.EDGE_CUTOFF_KEY}
        return graph(embedding.AddRadialCutoffToData(embedding.PolynomialCutoff(6), irreps_in=irreps), fresh)
    if name.startswith("AvgNumNeighborsNorm"):
        avg: Any = {"H": 3.0, "C": 2.0, "O": 1.5} if name.endswith("per_type") else 3.0
        fresh = {k: v for k, v in data.items() if k != D.FEATURE_NORM_FACTOR_KEY}
        norm = nnq.AvgNumNeighborsNorm(type_names=TYPES, avg_num_neighbors=avg)
        return graph(norm, fresh)
    if name == "TensorProductScatter":
        from nequip.model import NequIPGNNModel

        block = NequIPGNNModel(**BASE).model.func.layer0_convnet.conv
        tp = block.tp_scatter
        weights = torch.randn(data[D.EDGE_INDEX_KEY].shape[1], tp.tp.weight_numel, generator=gen)
        x = torch.randn(FRAMES * ATOMS, block.linear_1.irreps_out.dim, generator=gen)

        def scatter_tp(owner: Any, x_: Any, attrs: Any, w: Any, edges: Any) -> Any:
            return owner(x=x_, edge_attr=attrs, edge_weight=w, edge_dst=edges[0], edge_src=edges[1])

        return Run(tp, scatter_tp, [type(tp)]), (x, data[D.EDGE_ATTRS_KEY], weights, data[D.EDGE_INDEX_KEY]), {}
    if name.startswith("AppendVectorFieldEmbed"):
        fresh = dict(data)
        if ".node" in name:
            field, parity = D.DIPOLE_KEY, -1
            fresh[field] = torch.randn(fresh[D.POSITIONS_KEY].shape, generator=gen)
        else:
            field, parity = D.POLARIZATION_KEY, 1
            fresh[field] = torch.randn(1 if name.endswith("frame") else FRAMES, 3, generator=gen)
        if name.endswith(".frame"):
            fresh = {k: v for k, v in fresh.items() if k not in (D.BATCH_KEY, D.NUM_NODES_KEY)}
        embed = embedding.AppendVectorFieldEmbed({field: parity}, l_max=2, irreps_in=irreps,
                                                 append_to_node_attrs="features_only" not in name)
        return graph(embed, fresh)
    if name == "SimpleLennardJones":
        fresh = {k: v for k, v in data.items() if k != D.PER_ATOM_ENERGY_KEY}
        return graph(pair_potential.SimpleLennardJones(0.5, 0.2, irreps_in=irreps), fresh)
    if name.startswith("LennardJones"):
        keywords = {"LennardJones": {}, "LennardJones.repulsive.trainable": {
            "lj_style": "repulsive", "lj_sigma_trainable": True, "lj_epsilon_trainable": True},
            "LennardJones.repulsive_only.per_type": {
            "lj_style": "lj_repulsive_only", "lj_delta": 0.05, "lj_exponent": 4.0,
            "lj_sigma": torch.tensor([[0.5, 0.6, 0.7], [0.6, 0.8, 0.9], [0.7, 0.9, 1.0]])}}[name]
        lj = pair_potential.LennardJones(TYPES, **{"lj_sigma": 0.5, "lj_epsilon": 0.2, **keywords}, irreps_in=irreps)
        return graph(lj)
    raise KeyError(name)


def _function(name: str) -> Built:
    import torch
    from nequip.data import AtomicDataDict as D
    from nequip.data import from_dict
    from nequip.nn import utils as nn_utils

    from gt_calls import Call

    gen = _gen(17)
    if name.startswith("scatter"):
        src = torch.randn(24, 5, generator=gen)
        index = torch.randint(0, 8, (24,), generator=gen)
        if name == "scatter.out":
            return Call(lambda s, i, o: nn_utils.scatter(s, i, dim=0, out=o.clone())), \
                (src, index, torch.zeros(8, 5)), {}
        static = {"dim": 0} if name.endswith("no_dim_size") else {"dim": 0, "dim_size": 8}
        return Call(nn_utils.scatter, **static), (src, index), {}
    if name.startswith("with_edge_vectors_"):
        kind = {"cell": "batch.cell", "frame.cell": "frame.cell"}.get(name.partition(".")[2], "batch")
        data = _data(kind)
        if name.endswith("given_vectors"):
            data = _data("edge_vectors")
        call = Call(lambda d: nn_utils.with_edge_vectors_(dict(d), with_lengths=True))
        call.entry_points = lambda: [nn_utils.with_edge_vectors_]  # type: ignore[method-assign]
        return call, (data,), {}
    if name == "with_edge_type_":
        call = Call(lambda d: nn_utils.with_edge_type_(dict(d)))
        call.entry_points = lambda: [nn_utils.with_edge_type_]  # type: ignore[method-assign]
        return call, (_data("batch"),), {}
    if name.startswith("AtomicDataDict."):
        item = name.split(".", 1)[1]
        batch, frame = _data("batch.cell", targets=True), _data("frame.cell", targets=True)
        runs: dict[str, tuple[Any, Any, tuple[Any, ...]]] = {
            "with_batch_": (D.with_batch_, lambda d: D.with_batch_(dict(d)), (frame,)),
            "batched_from_list": (D.batched_from_list, lambda a, b: D.batched_from_list([dict(a), dict(b)]),
                                  (frame, batch)),
            "frame_from_batched": (D.frame_from_batched, lambda d: D.frame_from_batched(d, 1), (batch,)),
            "without_nodes.index": (D.without_nodes, lambda d, i: D.without_nodes(d, i),
                                    (batch, torch.tensor([1, 6]))),
            "without_nodes.mask": (D.without_nodes, lambda d, m: D.without_nodes(d, m),
                                   (batch, torch.tensor([False, True, False, False, True, False, False, True]))),
        }
        function, run, args = runs[item]
        call = Call(run)
        call.entry_points = lambda: [function]  # type: ignore[method-assign]
        return call, args, {}
    if name in ("mul_ir_to_ir_mul", "ir_mul_to_mul_ir"):
        irreps = "3x0e + 2x1o + 2x2e"
        return Call(getattr(nn_utils, name), irreps=irreps), (torch.randn(6, 19, generator=gen),), {}
    raw = {D.POSITIONS_KEY: torch.rand(5, 3, generator=gen, dtype=torch.float64), D.ATOM_TYPE_KEY: [0, 1, 2, 1, 0],
           D.CELL_KEY: torch.eye(3, dtype=torch.float64) * 4.0, D.PBC_KEY: torch.ones(3, dtype=torch.bool),
           D.TOTAL_ENERGY_KEY: torch.tensor(1.5, dtype=torch.float64),
           D.FORCE_KEY: torch.randn(5, 3, generator=gen, dtype=torch.float64)}

    def convert(pos: Any, energy: Any) -> Any:
        return from_dict({**raw, D.POSITIONS_KEY: pos, D.TOTAL_ENERGY_KEY: energy})

    call = Call(convert)
    call.entry_points = lambda: [from_dict]  # type: ignore[method-assign]
    return call, (raw[D.POSITIONS_KEY], raw[D.TOTAL_ENERGY_KEY]), {}


def _transform(name: str) -> Built:
    import torch
    from nequip.data import AtomicDataDict as D
    from nequip.data import compute_neighborlist_, transforms

    from gt_calls import Call, Run

    gen = _gen(19)
    batch = _data("batch.cell", targets=True)
    no_edges = {k: v for k, v in batch.items() if k not in (D.EDGE_INDEX_KEY, D.EDGE_CELL_SHIFT_KEY)}
    if name == "compute_neighborlist_":
        call = Call(lambda d: compute_neighborlist_(dict(d), R_MAX, backend="ase"))
        call.entry_points = lambda: [compute_neighborlist_]  # type: ignore[method-assign]
        return call, (no_edges,), {}
    if name == "NequIPCalculator.call_model":
        from nequip.integrations.ase import NequIPCalculator
        from nequip.model import NequIPGNNModel

        model = NequIPGNNModel(**BASE).eval()
        calc = NequIPCalculator(model, device="cpu", transforms=[])

        def call_model(owner: Any, d: dict[str, Any]) -> Any:
            with torch.enable_grad():
                return calc.call_model(dict(d))

        return Run(model, call_model, [NequIPCalculator.call_model]), (_data("frame.cell"),), {}
    frame = {k: v for k, v in _data("frame", targets=True).items() if k != D.EDGE_INDEX_KEY}
    frame[D.PBC_KEY] = torch.zeros(1, 3, dtype=torch.bool)
    nonperiodic = {**frame, D.PBC_KEY: torch.zeros(1, 3, dtype=torch.bool)}
    table: dict[str, tuple[Any, dict[str, Any]]] = {
        "VirialToStressTransform": (transforms.VirialToStressTransform(), {
            **batch, D.VIRIAL_KEY: torch.randn(FRAMES, 3, 3, generator=gen, dtype=torch.float64)}),
        "StressSignFlipTransform": (transforms.StressSignFlipTransform(), batch),
        "AddNaNStressTransform": (transforms.AddNaNStressTransform(),
                                  {k: v for k, v in batch.items() if k != D.STRESS_KEY}),
        "NonPeriodicCellTransform": (transforms.NonPeriodicCellTransform(padding=5.0), nonperiodic),
        "NonPeriodicCellTransform.override": (transforms.NonPeriodicCellTransform(override_cell=True), {
            **batch, D.PBC_KEY: torch.zeros(FRAMES, 3, dtype=torch.bool)}),
        "ChemicalSpeciesToAtomTypeMapper": (transforms.ChemicalSpeciesToAtomTypeMapper(TYPES), {
            k: v for k, v in {**batch, D.ATOMIC_NUMBERS_KEY: torch.tensor([1, 6, 8, 6, 1, 8, 6, 6])}.items()
            if k != D.ATOM_TYPE_KEY}),
        "ChemicalSpeciesToAtomTypeMapper.custom_map": (transforms.ChemicalSpeciesToAtomTypeMapper(
            ["my_H", "my_C", "my_O"], {"H": "my_H", "C": "my_C", "O": "my_O", "N": "my_C"}), {
            D.POSITIONS_KEY: frame[D.POSITIONS_KEY], D.ATOMIC_NUMBERS_KEY: torch.tensor([1, 7, 8, 6])}),
        "NeighborListTransform": (transforms.NeighborListTransform(r_max=R_MAX), frame),
        "NeighborListTransform.ase.cell": (transforms.NeighborListTransform(r_max=R_MAX, backend="ase"), no_edges),
        "NeighborListTransform.per_edge_type": (transforms.NeighborListTransform(
            r_max=R_MAX, per_edge_type_cutoff=CUTOFFS, type_names=TYPES), frame),
        "SortedNeighborListTransform": (transforms.SortedNeighborListTransform(r_max=R_MAX, backend="ase"), no_edges),
        "NeighborListPruneTransform": (transforms.NeighborListPruneTransform(R_MAX, CUTOFFS, TYPES), {
            k: v for k, v in batch.items() if k != D.EDGE_CELL_SHIFT_KEY and k not in (D.CELL_KEY, D.PBC_KEY)}),
        "DatasetIndexTransform": (transforms.DatasetIndexTransform(2), frame),
    }
    transform, data = table[name]
    return Run(transform, lambda owner, d: owner(dict(d)), [type(transform)]), (data,), {}


def build(name: str) -> Built:
    import torch

    _setup()
    torch.manual_seed(0)
    if name in FULL:
        return _full(name)
    if name in TRAIN:
        return _train(name)
    if name in OPTIM:
        return _optim(name)
    if name in MODEL_LAYERS:
        return _model_layer(name)
    if name in STATS_MANAGERS:
        return _stats_manager(name)
    if name in MANAGERS or name.startswith(("metric.", "stats.", "modifier.")):
        return _metrics(name)
    kind, item = name.split(".", 1)
    if kind == "layer":
        return _standalone(item)
    if kind == "fn":
        return _function(item)
    if kind == "transform":
        return _transform(item)
    raise KeyError(name)
