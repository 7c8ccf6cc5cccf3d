"""Ground-truth bench, allegro: the Allegro equivariant interatomic potential (nequip-allegro) on nequip's framework.

nequip-allegro 0.8.3 builds ``AllegroModel`` (a ``@model_builder`` of nequip: seed, dtype, ``GraphModel`` wrapper),
which sets the allowed tensor irreps from ``l_max`` and ``parity`` and calls ``FullAllegroModel``: normalized edge
lengths (per edge type on request), a two-body radial-chemical scalar embedding (``TwoBodyBesselScalarEmbed``: a
Bessel encoding under a polynomial cutoff times a product type embedding, or ``TwoBodySplineScalarEmbed``: per
edge-type splines), a scalar MLP, spherical-harmonic tensor embedding (``TwoBodySphericalHarmonicTensorEmbed``),
the strided Allegro layers (``Allegro_Module``: weighted channels, the ``Contracter`` tensor product, edge-wise
scatters normalized by the average neighbour count, latent MLPs), an edge readout, ``EdgewiseReduce`` to per-atom
energies, per-type scales and shifts, an optional pair potential and the sum to the total energy, under nequip's
``ForceStressOutput`` (forces and stress by ``torch.autograd.grad``). The tables cover, at three atom types (two and
four for the species counts), two frames of four atoms (complete neighbour graphs inside each frame), scalar
features of width 4 to 8 and tensor features of width 2 to 4:

- ``FULL``: whole models called on a fresh copy of the dictionary with gradients enabled: ``AllegroModel`` over
  ``l_max`` 0, 1 and 2, with and without parity, one to three layers, the spline embedding, trainable Bessel roots,
  another cutoff polynomial, per-edge-type cutoffs, per-type neighbour counts, uncoupled tensor-product paths,
  shared irrep weights, other nonlinearities and deeper MLPs, a separate embedding width, no forward normalization,
  energy only, periodic cells (stress) batched and for one frame, one frame without batch keys, given edge vectors,
  float32, trainable and per-type scales and shifts, the ZBL pair potential, two and four species, another cutoff;
  ``FullAllegroModel`` with explicit irreps; the ``pair_allegro`` data settings (ghost atoms for periodic images)
  followed by the model, as the LAMMPS export feeds it;
- ``TRAIN``: nequip Lightning steps without a trainer (``training_step``, ``backward``, the optimizer step) on an
  Allegro model: ``EnergyForceLoss`` (per-atom and total energy), ``EnergyForceStressLoss``, ``EnergyOnlyLoss``,
  the spline embedding, ``MuonWithAuxAdam`` on allegro's ``MuonParamGroups``, and a plain Adam step on a hand-written
  energy and force loss; ``validation_step`` with energy and force metrics;
- ``LAYERS``: each stage of a built model on the dictionary its predecessors produce (radial-chemical embeddings,
  scalar MLP, tensor embedding, the Allegro layers, readout, ``EdgewiseReduce``), ``PerClassSpline`` on its own, and
  nequip's ASE calculator calling an Allegro model (``NequIPCalculator.call_model``).

Left out: the Triton and CuEquivariance contracters (CUDA only) and compiled-model packaging (it writes files).
``set_global_state()`` runs first, as ``nequip-train`` does. Random weights, nothing downloaded; ``names()`` needs
no torch, ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
TYPES = ["H", "C", "O"]
R_MAX = 2.5
FRAMES, ATOMS = 2, 4
BESSEL: dict[str, Any] = {"_target_": "allegro.nn.TwoBodyBesselScalarEmbed", "num_bessels": 4}
SPLINE: dict[str, Any] = {"_target_": "allegro.nn.TwoBodySplineScalarEmbed", "num_splines": 6, "spline_span": 3}
BASE: dict[str, Any] = {
    "seed": 3, "model_dtype": "float64", "type_names": TYPES, "r_max": R_MAX, "l_max": 1,
    "radial_chemical_embed": BESSEL, "scalar_embed_mlp_hidden_layers_width": 8, "num_layers": 2,
    "num_scalar_features": 8, "num_tensor_features": 4, "allegro_mlp_hidden_layers_width": 8,
    "readout_mlp_hidden_layers_width": 8, "avg_num_neighbors": 3.0, "per_type_energy_scales": 1.0,
    "per_type_energy_shifts": {"H": -0.4, "C": -1.2, "O": -2.1},
}
ZBL: dict[str, Any] = {"_target_": "nequip.nn.pair_potential.ZBL", "units": "metal", "chemical_species": TYPES}
CUTOFFS: dict[str, Any] = {"H": 2.0, "C": {"H": 2.2, "O": 1.9}}

# Whole model -> (builder, keywords over ``BASE``, data kind). Builders: "allegro" (``AllegroModel``), "full"
# (``FullAllegroModel``), "pair_allegro" (the LAMMPS data settings, then the model). Data kinds: "batch", "batch.cell",
# "frame", "frame.cell", "edge_vectors"; ".2" and ".4" suffixes give two or four atom types.
FULL: dict[str, tuple[str, dict[str, Any], str]] = {
    "AllegroModel": ("allegro", {}, "batch"),
    "AllegroModel.no_parity": ("allegro", {"parity": False}, "batch"),
    "AllegroModel.l_max0": ("allegro", {"l_max": 0}, "batch"),
    "AllegroModel.l_max2": ("allegro", {"l_max": 2}, "batch"),
    "AllegroModel.l_max2.no_parity": ("allegro", {"l_max": 2, "parity": False}, "batch"),
    "AllegroModel.layers1": ("allegro", {"num_layers": 1}, "batch"),
    "AllegroModel.layers3": ("allegro", {"num_layers": 3}, "batch"),
    "AllegroModel.spline": ("allegro", {"radial_chemical_embed": SPLINE}, "batch"),
    "AllegroModel.spline.cell": ("allegro", {"radial_chemical_embed": SPLINE}, "batch.cell"),
    "AllegroModel.bessel_trainable": ("allegro", {"radial_chemical_embed": {
        **BESSEL, "bessel_trainable": True, "polynomial_cutoff_p": 4}}, "batch"),
    "AllegroModel.per_edge_type_cutoff": ("allegro", {"per_edge_type_cutoff": CUTOFFS}, "batch"),
    "AllegroModel.avg_num_neighbors_per_type": ("allegro", {"avg_num_neighbors": {"H": 3.0, "C": 2.5, "O": 2.0}},
                                                "batch"),
    "AllegroModel.no_path_channel_coupling": ("allegro", {"tp_path_channel_coupling": False}, "batch"),
    "AllegroModel.shared_irrep_weights": ("allegro", {"weight_individual_irreps": False}, "batch"),
    "AllegroModel.nonlinearities": ("allegro", {"scalar_embed_mlp_nonlinearity": "mish",
                                                "allegro_mlp_nonlinearity": "gelu",
                                                "readout_mlp_nonlinearity": None}, "batch"),
    "AllegroModel.deep_mlps": ("allegro", {"allegro_mlp_hidden_layers_depth": 2,
                                           "scalar_embed_mlp_hidden_layers_depth": 2,
                                           "readout_mlp_hidden_layers_depth": 2}, "batch"),
    "AllegroModel.radial_chemical_embed_dim": ("allegro", {"radial_chemical_embed_dim": 6}, "batch"),
    "AllegroModel.no_forward_normalize": ("allegro", {"forward_normalize": False}, "batch"),
    "AllegroModel.energy_only": ("allegro", {"do_derivatives": False}, "batch"),
    "AllegroModel.cell": ("allegro", {}, "batch.cell"),
    "AllegroModel.frame": ("allegro", {}, "frame"),
    "AllegroModel.frame.cell": ("allegro", {}, "frame.cell"),
    "AllegroModel.edge_vectors": ("allegro", {}, "edge_vectors"),
    "AllegroModel.float32": ("allegro", {"model_dtype": "float32"}, "batch"),
    "AllegroModel.trainable_scales_shifts": ("allegro", {"per_type_energy_scales": {"H": 0.9, "C": 1.1, "O": 1.0},
                                                         "per_type_energy_scales_trainable": True,
                                                         "per_type_energy_shifts_trainable": True}, "batch"),
    "AllegroModel.no_scales_shifts": ("allegro", {"per_type_energy_scales": None, "per_type_energy_shifts": None},
                                      "batch"),
    "AllegroModel.zbl": ("allegro", {"pair_potential": ZBL}, "batch"),
    "AllegroModel.zbl.cell": ("allegro", {"pair_potential": ZBL}, "batch.cell"),
    "AllegroModel.species2": ("allegro", {"type_names": ["H", "O"], "per_type_energy_shifts": -1.0}, "batch.2"),
    "AllegroModel.species4": ("allegro", {"type_names": ["H", "C", "N", "O"], "per_type_energy_shifts": -1.0},
                              "batch.4"),
    "AllegroModel.r_max4": ("allegro", {"r_max": 4.0}, "batch"),
    "FullAllegroModel": ("full", {"irreps_edge_sh": "1x0e + 1x1o + 1x2e",
                                  "tensor_track_allowed_irreps": "0e + 1o + 2e"}, "batch"),
    "pair_allegro.frame.cell": ("pair_allegro", {}, "frame.cell"),
}

LOSS_EF: dict[str, Any] = {"_target_": "nequip.train.EnergyForceLoss"}
# Training step -> (optimizer kind, model keywords over ``BASE``, loss config, data kind). Optimizer kinds: "adam",
# "muon" (``MuonWithAuxAdam`` on allegro's ``MuonParamGroups``), "manual" (Adam on a hand-written loss, no Lightning);
# "validation" runs ``validation_step`` with energy and force metrics instead.
TRAIN: dict[str, tuple[str, dict[str, Any], dict[str, Any], str]] = {
    "train.EnergyForceLoss": ("adam", {}, LOSS_EF, "batch"),
    "train.EnergyForceLoss.total_energy": ("adam", {}, {**LOSS_EF, "per_atom_energy": False}, "batch"),
    "train.EnergyForceStressLoss": ("adam", {}, {"_target_": "nequip.train.EnergyForceStressLoss"}, "batch.cell"),
    "train.EnergyOnlyLoss": ("adam", {"do_derivatives": False}, {"_target_": "nequip.train.EnergyOnlyLoss"}, "batch"),
    "train.spline": ("adam", {"radial_chemical_embed": SPLINE}, LOSS_EF, "batch"),
    "train.MuonParamGroups": ("muon", {}, LOSS_EF, "batch"),
    "train.manual_adam": ("manual", {}, {}, "batch"),
    "validation_step": ("validation", {}, LOSS_EF, "batch"),
}

# Layer -> (model keywords over ``BASE``, path in the energy network, data kind).
LAYERS: dict[str, tuple[dict[str, Any], str, str]] = {
    "layer.TwoBodyBesselScalarEmbed": ({}, "radial_chemical_embed", "batch"),
    "layer.TwoBodySplineScalarEmbed": ({"radial_chemical_embed": SPLINE}, "radial_chemical_embed", "batch"),
    "layer.scalar_embed_mlp": ({}, "scalar_embed_mlp", "batch"),
    "layer.TwoBodySphericalHarmonicTensorEmbed": ({"l_max": 2}, "tensor_embed", "batch"),
    "layer.Allegro_Module": ({}, "allegro", "batch"),
    "layer.Allegro_Module.frame": ({}, "allegro", "frame"),
    "layer.Allegro_Module.uncoupled": ({"tp_path_channel_coupling": False}, "allegro", "batch"),
    "layer.edge_readout": ({}, "edge_readout", "batch"),
    "layer.EdgewiseReduce": ({}, "edge_eng_sum", "batch"),
    "layer.EdgewiseReduce.per_type": ({"avg_num_neighbors": {"H": 3.0, "C": 2.5, "O": 2.0}}, "edge_eng_sum",
                                      "batch"),
}
OTHER = ("PerClassSpline", "NequIPCalculator.call_model")


def names() -> list[str]:
    return list(FULL) + list(TRAIN) + list(LAYERS) + list(OTHER)


def _gen(seed: int) -> Any:
    import torch

    return torch.Generator().manual_seed(seed)


def _data(kind: str, targets: bool = False) -> dict[str, Any]:
    """An ``AtomicDataDict``: ``FRAMES`` frames of ``ATOMS`` atoms (one for the "frame" kinds and given edge vectors),
    each atom's neighbours the other atoms of its frame; atom types over two, three or four species; with
    ``targets``, energy, force and stress labels."""
    import torch
    from nequip.data import AtomicDataDict as D

    gen = _gen(5)
    frames = 1 if kind.startswith("frame") or kind == "edge_vectors" else FRAMES
    n = frames * ATOMS
    species = 2 if kind.endswith(".2") else (4 if kind.endswith(".4") else 3)
    pos = torch.rand(n, 3, generator=gen, dtype=torch.float64) * 1.6
    types = torch.tensor([0, 1, 2, 3, 1, 2, 0, 1][:n]) % species
    edges = torch.tensor([(i, j) for i in range(n) for j in range(n) if i != j and i // ATOMS == j // ATOMS]).T
    data: dict[str, Any] = {D.POSITIONS_KEY: pos, D.ATOM_TYPE_KEY: types, D.EDGE_INDEX_KEY: edges.contiguous()}
    if frames > 1:
        data[D.BATCH_KEY] = torch.arange(frames).repeat_interleave(ATOMS)
        data[D.NUM_NODES_KEY] = torch.full((frames,), ATOMS)
    if ".cell" in kind:
        data[D.CELL_KEY] = torch.eye(3, dtype=torch.float64).expand(frames, 3, 3) * 3.2 + 0.05 * torch.rand(
            frames, 3, 3, generator=gen, dtype=torch.float64)
        data[D.PBC_KEY] = torch.ones(frames, 3, dtype=torch.bool)
        shifts = torch.randint(-1, 2, (edges.shape[1], 3), generator=gen).to(torch.float64)
        shifts[: edges.shape[1] // 2] = 0.0
        data[D.EDGE_CELL_SHIFT_KEY] = shifts
    if kind == "edge_vectors":
        data[D.EDGE_VECTORS_KEY] = pos[edges[1]] - pos[edges[0]]
        del data[D.POSITIONS_KEY]
    if targets:
        data[D.TOTAL_ENERGY_KEY] = torch.randn(frames, 1, generator=gen, dtype=torch.float64)
        data[D.FORCE_KEY] = torch.randn(n, 3, generator=gen, dtype=torch.float64)
        stress = torch.randn(frames, 3, 3, generator=gen, dtype=torch.float64)
        data[D.STRESS_KEY] = stress + stress.transpose(1, 2)
    return data


def _setup() -> None:
    from nequip.utils.global_state import set_global_state

    set_global_state()


def _model(builder: str, keywords: dict[str, Any]) -> Any:
    from allegro.model import AllegroModel
    from allegro.model.allegro_models import FullAllegroModel

    if builder == "full":
        base = {k: v for k, v in BASE.items() if k != "l_max"}
        return FullAllegroModel(**{**base, **keywords})
    return AllegroModel(**{**BASE, **keywords})


class _Evaluate:
    """Calls a model on a fresh copy of its dictionary with gradients enabled (forces are energy derivatives)."""

    def __init__(self, prepare: Any = None) -> None:
        self.prepare = prepare

    def __call__(self, owner: Any, data: dict[str, Any]) -> Any:
        import torch

        fresh = dict(data)
        if self.prepare is not None:
            fresh = self.prepare(fresh)
        with torch.enable_grad():
            return owner(fresh)


def _full(name: str) -> Built:
    from gt_calls import Run

    builder, keywords, kind = FULL[name]
    model = _model(builder, keywords)
    data = _data(kind)
    if builder == "pair_allegro":
        from allegro._compile import allegro_data_settings

        return Run(model, _Evaluate(allegro_data_settings), [allegro_data_settings, type(model)]), (data,), {}
    return Run(model, _Evaluate(), [type(model)]), (data,), {}


def _train(name: str) -> Built:
    import torch
    from nequip.data import AtomicDataDict as D

    from gt_calls import Run

    kind_, keywords, loss, kind = TRAIN[name]
    batch = _data(kind, targets=True)

    class TrainStep(Run):
        """A training step keeps its model in train mode whatever the harness's mode (the forces keep their graph)."""

        def train(self, mode: bool = True) -> TrainStep:
            super().train(mode)
            self.owner.train(True)
            return self

    if kind_ == "manual":
        model = _model("allegro", keywords)
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

        def manual(owner: Any, b: dict[str, Any]) -> Any:
            with torch.enable_grad():
                optimizer.zero_grad()
                out = owner({k: v for k, v in b.items() if k not in (D.TOTAL_ENERGY_KEY, D.FORCE_KEY, D.STRESS_KEY)})
                energy = ((out[D.TOTAL_ENERGY_KEY] - b[D.TOTAL_ENERGY_KEY]) / ATOMS).square().mean()
                forces = (out[D.FORCE_KEY] - b[D.FORCE_KEY]).square().mean()
                total = energy + 10.0 * forces
                total.backward()
                optimizer.step()
            return total.detach()

        return TrainStep(model, manual, [type(model), type(optimizer).step]), (batch,), {}

    from nequip.train import NequIPLightningModule

    optim: dict[str, Any] = {"_target_": "torch.optim.Adam", "lr": 1e-3}
    if kind_ == "muon":
        optim = {"_target_": "nequip.train.MuonWithAuxAdam", "param_groups": {
            "_target_": "allegro.model.MuonParamGroups", "muon": {"lr": 0.01, "weight_decay": 1e-5},
            "adam": {"lr": 1e-3}}}
    extra: dict[str, Any] = {}
    if kind_ == "validation":
        extra["val_metrics"] = {"_target_": "nequip.train.EnergyForceMetrics"}
    module = NequIPLightningModule(model={"_target_": "allegro.model.AllegroModel", **BASE, **keywords},
                                   num_datasets={"train": 1, "val": 1, "test": 1}, optimizer=optim, loss=loss,
                                   **extra)
    if kind_ == "validation":
        return Run(module, lambda owner, b: owner.validation_step(dict(b), 0),
                   [NequIPLightningModule.validation_step]), (batch,), {}
    optimizer = module.configure_optimizers()
    if isinstance(optimizer, dict):
        optimizer = optimizer["optimizer"]

    def step(owner: Any, b: dict[str, Any]) -> Any:
        with torch.enable_grad():
            optimizer.zero_grad()
            value = owner.training_step(dict(b), 0)
            value.backward()
            optimizer.step()
        return value.detach()

    entries: list[Any] = [NequIPLightningModule.training_step]
    if kind_ == "muon":
        entries.append(type(optimizer).step)
    return TrainStep(module, step, entries), (batch,), {}


def _layer(name: str) -> Built:
    import torch

    from gt_calls import Run

    keywords, path, kind = LAYERS[name]
    model = _model("allegro", keywords)
    energy = model.model.func
    data = {k: v for k, v in _data(kind).items() if k in model.model_input_fields}
    with torch.no_grad():
        for child_name, child in energy.named_children():
            if child_name == path:
                break
            data = child(data)
    module = energy.get_submodule(path)
    data = {k: v.detach() for k, v in data.items()}
    return Run(module, lambda owner, d: owner(dict(d)), [type(module)]), (data,), {}


def _other(name: str) -> Built:
    import torch
    from allegro.nn.spline import PerClassSpline

    from gt_calls import Run

    gen = _gen(7)
    if name == "NequIPCalculator.call_model":
        from nequip.integrations.ase import NequIPCalculator

        model = _model("allegro", {}).eval()
        calc = NequIPCalculator(model, device="cpu", transforms=[])

        def call_model(owner: Any, d: dict[str, Any]) -> Any:
            with torch.enable_grad():
                return calc.call_model(dict(d))

        return Run(model, call_model, [NequIPCalculator.call_model]), (_data("frame.cell"),), {}
    spline = PerClassSpline(num_classes=9, num_channels=5, num_splines=6, spline_span=3, dtype=torch.float64)
    x = torch.rand(20, 1, generator=gen, dtype=torch.float64)
    classes = torch.randint(0, 9, (20,), generator=gen)
    return spline, (x, classes), {}


def build(name: str) -> Built:
    import torch

    _setup()
    torch.manual_seed(0)
    if name in FULL:
        return _full(name)
    if name in TRAIN:
        return _train(name)
    if name in LAYERS:
        return _layer(name)
    if name in OTHER:
        return _other(name)
    raise KeyError(name)
