"""Ground-truth bench, torchani: ANI neural network potentials with random weights: energies, forces,
periodic cells, batches, their parts (AEVs, atomic networks, neighbor lists, pair potentials) and
training steps, on small molecules.

torchani 2.9.0's published models (``torchani.models.ANI2x()`` ...) always load trained parameters,
which are downloaded. Each model here is assembled the way its factory assembles it, from the same
``torchani.arch.Assembler`` calls (or ``simple_ani`` with the factory's arguments), and left at its
random initialisation, with one network per element (what ``ANI2x(model_index=0)`` gives), or an
ensemble of 2 instead of 8 for the ensemble entry points (the code is the same, the trace shorter).
Molecules are given by atomic number, as the models take them: methane or water alone, conformer
batches (a molecule's perturbed geometries: methanol, and a molecule with the ANI-2x elements S, F and
Cl), a batch of three molecules padded with ``-1`` at the origin (``ANI1x.padded_batch``; under
``torch.compile`` the neighbor list keeps the padding atoms' pairs, ``narrow_down`` discards them only
when not compiling, so the AEVs index with ``-1`` and the compiled model raises where eager runs), and
twelve atoms in a periodic cubic cell (``cell``, ``pbc``).

- ``MODELS``: a model (``ANI1x``, ``ANI2x``, ``ANI1xnr``, ``ANI2xr`` with xTB repulsion, ``ANI2dr``
  with D3 dispersion, ``SnnANI2xr`` with its shared network, ``ANImbis`` with charge networks, an
  ``ANISharedNetworks`` model) called on one input, with the all-pairs, cell or adaptive neighbor
  list, or one of its entry points: ``atomic_energies``, ``ensemble_values``, ``energies_qbcs``,
  the neighbor-list entry ``compute_from_external_neighbors``, and through a bench module
  (``_Forces``, gradients enabled since forces need them in eval mode too): forces by
  ``torch.autograd.grad`` as the tutorials compute them, ``torchani.single_point`` (with forces,
  with hessians) and ``force_qbc`` (the ensemble members' forces);
- ``TRAIN``: a training step as the tutorials write it (bench code, ``_TrainStep``): the energy
  loss ``(mse(predicted, target) / sqrt(atoms)).mean()``, with a force term from
  ``torchani.grad.forces_for_training`` in one variant, and the dataset transforms ``SubtractSAE``
  and ``SubtractRepulsionXTB`` (``torchani.transforms.Compose``) on the batch in another;
- ``PARTS``: the modules users assemble by hand, as the legacy tutorials did: ``AEVComputer``
  (``like_1x``, periodic, with a cell list), ``ANINetworks``, the legacy ``ANIModel``,
  ``SpeciesConverter``, ``SelfEnergy``, the legacy ``EnergyShifter``, the cell and adaptive neighbor
  lists, four pair potentials of ``torchani.potentials`` on their own and ``DipoleComputer``.

Left out: the CUDA extensions (cuAEV, the fast cell list, MNP) and ``to_infer_model`` (it needs NVTX,
a CUDA build), the ASE calculator and datasets (they need files), ``torchani.nn.Sequential`` (its
tuple-passing legacy calls only work eagerly, behind ``torch.compiler.is_compiling()``). ``names()``
needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

ENSEMBLE = 2  # members of the ensemble models (the published ones have 8)
# Model -> (architecture of ``_model``, input of ``inputs``, entry point, keywords of the entry point).
# Entry points: a method of the model, or "forces", "single_point", "force_qbc", "external_neighbors"
# (handled in ``_entry``). Architectures ending in ``.ensemble`` have ``ENSEMBLE`` members, the others one
# (what ``ANI2x(model_index=0)`` gives); ``.cell_list`` and ``.adaptive`` pick the neighbor list.
MODELS: dict[str, tuple[str, str, str, dict[str, Any]]] = {
    "ANI1x": ("ANI1x", "single", "forward", {}),
    "ANI1x.conformers": ("ANI1x", "conformers", "forward", {}),
    "ANI1x.padded_batch": ("ANI1x", "padded", "forward", {}),
    "ANI2x.conformers": ("ANI2x", "conformers2x", "forward", {}),
    "ANI2x.pbc": ("ANI2x", "periodic", "forward", {}),
    "ANI2x.cell_list.pbc": ("ANI2x.cell_list", "periodic", "forward", {}),
    "ANI2x.adaptive_list": ("ANI2x.adaptive", "single", "forward", {}),
    "ANI2x.atomic_energies": ("ANI2x", "conformers2x", "atomic_energies", {}),
    "ANI2x.ensemble_values": ("ANI2x.ensemble", "conformers2x", "forward", {"ensemble_values": True}),
    "ANI2x.energies_qbcs": ("ANI2x.ensemble", "conformers2x", "energies_qbcs", {}),
    "ANI2x.external_neighbors": ("ANI2x", "single", "external_neighbors", {}),
    "ANI1x.forces": ("ANI1x", "single", "forces", {}),
    "ANI2x.forces.pbc": ("ANI2x", "periodic", "forces", {}),
    "ANI2x.single_point": ("ANI2x", "conformers2x", "single_point", {"forces": True, "atomic_energies": True}),
    "ANI1x.single_point.hessians": ("ANI1x", "water", "single_point", {"hessians": True}),
    "ANI2x.force_qbc": ("ANI2x.ensemble", "conformers2x", "force_qbc", {}),
    "ANI1xnr": ("ANI1xnr", "conformers", "forward", {}),
    "ANI2xr": ("ANI2xr", "conformers2x", "forward", {}),
    "ANI2dr": ("ANI2dr", "conformers2x", "forward", {}),
    "SnnANI2xr": ("SnnANI2xr", "conformers2x", "forward", {}),
    "ANImbis": ("ANImbis", "conformers2x", "forward", {}),
    "ANISharedNetworks": ("ANISharedNetworks", "conformers2x", "forward", {}),
}
# Train step -> (architecture, input, with forces, with the SubtractSAE and SubtractRepulsionXTB transforms).
TRAIN: dict[str, tuple[str, str, bool, bool]] = {
    "train_step.ANI1x": ("ANI1x", "conformers", False, False),
    "train_step.ANI2x.forces": ("ANI2x", "conformers2x", True, False),
    "train_step.ANI2xr.transforms": ("ANI2xr", "conformers2x", False, True),
}
PARTS = (
    "AEVComputer.like_1x", "AEVComputer.like_2x.pbc", "AEVComputer.cell_list.pbc", "ANINetworks.like_2x",
    "ANIModel", "SpeciesConverter", "SelfEnergy", "EnergyShifter", "neighbors.cell_list.pbc",
    "neighbors.adaptive_list", "potentials.RepulsionXTB", "potentials.RepulsionZBL", "potentials.LennardJones",
    "potentials.FixedCoulomb", "DipoleComputer",
)

SYMBOLS_1X = ("H", "C", "N", "O")
SYMBOLS_2X = ("H", "C", "N", "O", "S", "F", "Cl")
# Atomic numbers padded with -1, and coordinates in Angstrom (padding atoms at the origin).
METHANE = ([6, 1, 1, 1, 1], [[0.0319, 0.0064, 0.0130], [-0.8314, 0.3937, -0.2640], [-0.6652, -0.8446, 0.2076],
                             [0.4555, 0.5429, 0.8117], [0.6609, -0.1680, -0.9104]])
WATER = ([8, 1, 1], [[0.0, 0.0, 0.1173], [0.0, 0.7572, -0.4692], [0.0, -0.7572, -0.4692]])
AMMONIA = ([7, 1, 1, 1], [[0.0, 0.0, 0.1162], [0.0, 0.9397, -0.2711], [0.8138, -0.4699, -0.2711],
                          [-0.8138, -0.4699, -0.2711]])
METHANOL = ([6, 8, 1, 1, 1, 1], [[-0.0467, 0.6629, 0.0], [-0.0467, -0.7565, 0.0], [-1.0863, 0.9759, 0.0],
                                 [0.4373, 1.0758, 0.8877], [0.4373, 1.0758, -0.8877], [0.8485, -1.0809, 0.0]])
# Fluoromethyl chloromethyl sulfide: H, C, S, F and Cl in one molecule, for the ANI-2x elements.
FSCL = ([16, 6, 6, 9, 1, 1, 17, 1, 1], [[0.0, 0.0, 0.0], [1.81, 0.0, 0.0], [-0.45, 1.75, 0.0], [2.25, 1.30, 0.0],
                                        [2.17, -0.52, 0.89], [2.17, -0.52, -0.89], [-2.24, 1.85, 0.0],
                                        [-0.08, 2.26, 0.89], [-0.08, 2.26, -0.89]])
CELL = 8.0  # side of the periodic cubic box, in Angstrom


def names() -> list[str]:
    return list(MODELS) + list(TRAIN) + [f"part.{p}" for p in PARTS]


def _padded(molecules: list[tuple[list[int], list[list[float]]]]) -> tuple[Any, Any]:
    import torch

    atoms = max(len(z) for z, _ in molecules)
    species = torch.full((len(molecules), atoms), -1, dtype=torch.long)
    coords = torch.zeros(len(molecules), atoms, 3)
    for i, (z, xyz) in enumerate(molecules):
        species[i, :len(z)] = torch.tensor(z)
        coords[i, :len(z)] = torch.tensor(xyz)
    return species, coords


def inputs(kind: str) -> tuple[Any, Any, Any, Any]:
    """``(species, coordinates, cell, pbc)``: atomic numbers (``-1`` pads), Angstrom, and the periodic box
    (``None`` outside ``periodic``). ``conformers`` are a batch of one molecule's perturbed geometries (no
    padding); ``padded`` is a batch of different molecules padded with ``-1`` at the origin, as datasets
    batch them."""
    import torch

    gen = torch.Generator().manual_seed(0)
    if kind in ("single", "water", "padded"):
        species, coords = _padded({"single": [METHANE], "water": [WATER], "padded": [METHANE, WATER, METHANOL]}[kind])
        return species, coords, None, None
    if kind.startswith("conformers"):
        z, xyz = (METHANOL, 3) if kind == "conformers" else (FSCL, 2)
        species, coords = _padded([z] * xyz)
        return species, coords + 0.05 * torch.randn(coords.shape, generator=gen), None, None
    # periodic: a methanol, a water and an ammonia in a cubic box, as one system
    shifted = [(z, [[a + b + 1.5 for a, b in zip(atom, offset)] for atom in xyz]) for offset, (z, xyz)
               in zip(([0.0, 0.0, 0.0], [4.0, 0.5, 0.0], [0.5, 4.0, 3.5]), (METHANOL, WATER, AMMONIA))]
    species = torch.tensor([[a for z, _ in shifted for a in z]])
    coords = torch.tensor([[p for _, x in shifted for p in x]])
    return species, coords, torch.eye(3) * CELL, torch.tensor([True, True, True])


def _model(arch: str) -> Any:
    """An ANI model assembled as its ``torchani.models`` factory assembles it, without loading parameters."""
    from torchani import arch as ani_arch
    from torchani.electro import ChargeNormalizer
    from torchani.nn._internal import _ANINetworksDiscardFirstScalar

    name, _, variant = arch.partition(".")
    size = ENSEMBLE if variant == "ensemble" else 1
    neighborlist = variant if variant in ("cell_list", "adaptive") else "all_pairs"
    if name in ("ANI1x", "ANI1ccx", "ANI2x", "ANImbis"):
        symbols, ctor = (SYMBOLS_1X, "ani1x") if name.startswith("ANI1") else (SYMBOLS_2X, "ani2x")
        asm = ani_arch.Assembler(cls=ani_arch.ANIq if name == "ANImbis" else ani_arch.ANI)
        asm.set_symbols(symbols)
        asm.set_global_cutoff_fn("cosine")
        asm.set_aev_computer(angular=ctor, radial=ctor, strategy="pyaev")
        asm.set_atomic_networks(ctor=ctor)
        if name == "ANImbis":
            asm.set_charge_networks(cls=_ANINetworksDiscardFirstScalar, ctor="ani2x",
                                    kwargs={"out_dim": 2, "bias": False, "activation": "gelu"},
                                    normalizer=ChargeNormalizer.from_electronegativity_and_hardness(
                                        asm.symbols, scale_weights_by_charges_squared=True))
        asm.set_neighborlist(neighborlist)
        asm.set_gsaes_as_self_energies("ccsd(t)star-cbs" if name == "ANI1ccx" else "wb97x-631gd")
        return asm.assemble(size)
    common = {"ensemble_size": size, "neighborlist": neighborlist, "strategy": "pyaev"}
    keywords: dict[str, Any] = {
        "ANI2xr": {"lot": "wb97x-631gd", "symbols": SYMBOLS_2X, "dispersion": False, "repulsion": True},
        "ANI2dr": {"lot": "b973c-def2mtzvp", "symbols": SYMBOLS_2X, "dispersion": True, "repulsion": True},
        "SnnANI2xr": {"lot": "wb97x-631gd", "symbols": SYMBOLS_2X, "container": "SingleNN",
                      "container_ctor": "large", "repulsion": True, "sections": 6},
        "ANI1xnr": {"lot": "blyp-tzv2p", "symbols": SYMBOLS_1X, "radial_start": 0.5, "angular_start": 0.5,
                    "radial_cutoff": 5.2, "angular_cutoff": 3.5, "radial_precision": 65.7,
                    "angular_precision": 10.1, "angular_zeta": 14.1, "radial_shifts": 32, "angular_shifts": 8,
                    "sections": 4, "cutoff_fn": "cosine", "container": "ANINetworks", "container_ctor": "like_2x",
                    "dispersion": False, "repulsion": False, "activation": "celu", "self_energies": "zero",
                    "bias": True},
        "ANISharedNetworks": {"lot": "wb97x-631gd", "symbols": SYMBOLS_2X, "container": "ANISharedNetworks",
                              "repulsion": False},
    }[name]
    return ani_arch.simple_ani(**common, **keywords)


def _entry(name: str) -> Built:
    import torch
    import torchani
    from gt_calls import Method
    from torch import nn

    arch, kind, entry, keywords = MODELS[name]
    model = _model(arch)
    species, coords, cell, pbc = inputs(kind)
    periodic = (cell, pbc) if cell is not None else ()
    if entry in ("forward", "atomic_energies", "energies_qbcs", "atomic_stdev"):
        if entry == "forward" and not keywords:
            return model, ((species, coords), *periodic), {}
        return Method(model, entry, **keywords), ((species, coords), *periodic), {}
    if entry == "external_neighbors":  # neighbors from an MD engine, screened again by the model
        neighbors = torchani.neighbors.all_pairs(6.0, model.species_converter(species), coords)
        shifts = torch.zeros(neighbors.indices.shape[1], 3)
        return Method(model, "compute_from_external_neighbors"), (species, coords, neighbors.indices, shifts), {}

    class _Forces(nn.Module):
        """Energies and forces of ``model`` (gradients enabled: forces need them in eval mode too)."""

        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, species: torch.Tensor, coords: torch.Tensor, *periodic: torch.Tensor) -> Any:
            with torch.enable_grad():
                if entry == "forces":  # as the tutorials compute forces
                    energies = self.model((species, coords), *periodic).energies
                    return energies, -torch.autograd.grad(energies.sum(), coords)[0]
                if entry == "energies_and_forces":
                    return torchani.grad.energies_and_forces(self.model, species, coords, *periodic)
                if entry == "single_point":
                    return torchani.single_point(self.model, species, coords, *periodic, **keywords)
                return getattr(self.model, entry)((species, coords), *periodic)

        def entry_points(self) -> list[Any]:
            called = {"forces": [], "energies_and_forces": [torchani.grad.energies_and_forces],
                      "single_point": [torchani.grad.single_point]}
            return [type(model), *(called[entry] if entry in called else [getattr(type(model), entry)])]

    return _Forces(), (species, coords.clone().requires_grad_(True), *periodic), {}


def _train(name: str) -> Built:
    import torch
    import torchani
    from torch import nn

    arch, kind, with_forces, with_transform = TRAIN[name]
    model = _model(arch)
    species, coords, _, _ = inputs(kind)
    gen = torch.Generator().manual_seed(1)
    energies = torch.randn(species.shape[0], generator=gen) - 40.0
    forces = torch.randn(coords.shape, generator=gen) * 0.05 * (species >= 0).unsqueeze(-1)
    transform = None
    if with_transform:  # the network learns what the self energies and the repulsion leave
        transform = torchani.transforms.Compose([
            torchani.transforms.SubtractSAE(model.symbols, model.energy_shifter.self_energies.tolist()),
            torchani.transforms.SubtractRepulsionXTB(model.symbols)])
        model.set_enabled("energy_shifter", False)
        model.set_enabled("repulsion_xtb", False)

    class _TrainStep(nn.Module):
        """One batch of the training loop of the torchani tutorials, up to ``loss.backward()``."""

        def __init__(self) -> None:
            super().__init__()
            self.model = model
            self.mse = nn.MSELoss(reduction="none")
            self.transform = transform

        def forward(self, species: torch.Tensor, coords: torch.Tensor, target: torch.Tensor,
                    target_forces: torch.Tensor) -> Any:
            num_atoms = (species >= 0).sum(dim=1, dtype=target.dtype)
            with torch.enable_grad():  # the repulsion transform and the forces need gradients in eval mode too
                if self.transform is not None:
                    batch = self.transform({"species": species, "coordinates": coords, "energies": target.clone(),
                                            "forces": target_forces.clone()})
                    target, target_forces = batch["energies"], batch["forces"]
                predicted = self.model((species, coords)).energies
                loss = (self.mse(predicted, target) / num_atoms.sqrt()).mean()
                if with_forces:
                    predicted_forces = torchani.grad.forces_for_training(predicted, coords)
                    force_loss = (self.mse(predicted_forces, target_forces).sum(dim=(1, 2)) / num_atoms).mean()
                    loss = loss + 0.1 * force_loss
            return loss

        def entry_points(self) -> list[Any]:
            called = [torchani.grad.forces_for_training] if with_forces else []
            transforms = [type(transform), *(type(t) for t in transform.transforms)] if transform is not None else []
            return [type(model), *called, *transforms]

    return _TrainStep(), (species, coords.clone().requires_grad_(with_forces), energies, forces), {}


def _part(name: str) -> Built:
    from collections import OrderedDict

    import torch
    import torchani
    from gt_calls import Call
    from torchani import neighbors, potentials
    from torchani.aev import AEVComputer
    from torchani.nn import ANINetworks, SpeciesConverter
    from torchani.sae import SelfEnergy

    pspecies, pcoords, pcell, ppbc = inputs("periodic")
    species, coords, _, _ = inputs("conformers2x")
    elem_idxs = SpeciesConverter(SYMBOLS_2X)(species)
    gen = torch.Generator().manual_seed(2)
    if name == "AEVComputer.like_1x":
        species1x, coords1x, _, _ = inputs("conformers")
        return AEVComputer.like_1x(), (SpeciesConverter(SYMBOLS_1X)(species1x), coords1x), {}
    if name.startswith("AEVComputer."):
        list_kind = "cell_list" if name.startswith("AEVComputer.cell_list") else "all_pairs"
        return (AEVComputer.like_2x(neighborlist=list_kind),
                (SpeciesConverter(SYMBOLS_2X)(pspecies), pcoords, pcell, ppbc), {})
    if name == "ANINetworks.like_2x":
        return ANINetworks.like_2x(), (elem_idxs, AEVComputer.like_2x()(elem_idxs, coords)), {}
    if name == "ANIModel":  # the legacy container, one network per element as the old tutorials built it
        species1x, coords1x, _, _ = inputs("padded")
        elem_idxs1x = SpeciesConverter(SYMBOLS_1X)(species1x)
        aevs = torch.randn(*species1x.shape, 384, generator=gen)
        nets = OrderedDict((s, torchani.nn.AtomicNetwork((384, 64, 32, 1), activation="celu", bias=True))
                           for s in SYMBOLS_1X)
        return torchani.nn.ANIModel(nets), (elem_idxs1x, aevs), {}
    padded, _, _, _ = inputs("padded")
    if name == "SpeciesConverter":
        return SpeciesConverter(SYMBOLS_1X), (padded,), {}
    if name == "SelfEnergy":
        return SelfEnergy.with_gsaes(SYMBOLS_1X, "wb97x", "631gd"), (SpeciesConverter(SYMBOLS_1X)(padded),), {}
    if name == "EnergyShifter":  # the legacy shifter, on (species, energies) tuples
        shifter = torchani.EnergyShifter([-0.5, -38.0, -54.6, -75.0])
        idxs = SpeciesConverter(SYMBOLS_1X)(padded)
        return shifter, ((idxs, torch.randn(padded.shape[0], generator=gen)),), {}
    if name == "neighbors.cell_list.pbc":
        return Call(neighbors.cell_list), (5.2, pspecies, pcoords, pcell, ppbc), {}
    if name == "neighbors.adaptive_list":  # one molecule: the adaptive list takes no batches
        return Call(neighbors.adaptive_list), (5.2, elem_idxs[:1], coords[:1]), {}
    if name.startswith("potentials."):  # ``Potential.forward``: its own neighbor list, then the pair energies
        keywords: dict[str, Any] = {"cutoff": 5.2}
        if name.endswith("FixedCoulomb"):
            keywords["charges"] = [0.3, -0.2, -0.4, -0.5, -0.2, -0.3, -0.2]
        return getattr(potentials, name.split(".")[1])(SYMBOLS_2X, **keywords), (species, coords), {}
    # DipoleComputer: dipoles of atomic charges (as ANImbis predicts them), from the centre of mass
    from torchani.electro import DipoleComputer

    charges = torch.randn(padded.shape, generator=gen) * 0.1 * (padded >= 0)
    return DipoleComputer(), (padded, inputs("padded")[1], charges), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")  # deprecation notes of the legacy classes
    torch.manual_seed(0)
    if name in MODELS:
        return _entry(name)
    if name in TRAIN:
        return _train(name)
    return _part(name.split(".", 1)[1])
