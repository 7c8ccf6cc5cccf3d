"""Ground-truth bench, torchattacks: torchattacks 3.5.1's adversarial attacks run on a tiny image classifier.

torchattacks' attacks are not modules: users wrap a classifier (``atk = torchattacks.PGD(model, eps=8/255,
alpha=2/255, steps=10)``), pick a mode (``atk.set_mode_targeted_random()``, ``set_normalization_used(mean,
std)``, ``set_model_training_mode(...)``) and call the attack on a batch (``adv = atk(images, labels)``).
``Attack.__call__`` switches the model's mode, undoes the normalization, runs the attack's ``forward`` (its
iterative loop: ``torch.autograd.grad`` of a loss, signs, clamps onto the epsilon ball, random starts,
momentum, input diversity, early stops, numpy bookkeeping, differential evolution, binary searches) and puts
the model's mode back. So each model here is a bench module (``_attack_module``, a ``gt_calls.Call`` of the attack
object) whose forward calls the attack on ``(images, labels)`` with gradients enabled, as users call it
outside ``no_grad``: the library's code is what gets traced. The classifier is built here from ``torch.nn``
(a convolution, batch norm, ReLU, pooling, dropout and a linear head over 10 classes) with random weights, on
2 RGB images of 16 x 16 in [0, 1]; the labels are its own predictions, so that the attacks which only attack
correctly classified images (APGD, FAB, Square, AutoAttack) run their loops. Every attack takes 2 or 3
steps, restarts, queries or samples.

- ``ATTACKS``: every attack class of ``torchattacks`` at its main options: the Linf attacks (FGSM, BIM, RFGSM,
  PGD with and without a random start, EOTPGD, FFGSM, TPGD, MIFGSM, UPGD with its ce / dlr / margin losses,
  APGD with ce and dlr losses, Linf and L2 norms, EOT and restarts, APGDT, DIFGSM, TIFGSM with its three
  kernels, Jitter, NIFGSM, PGDRS with Gaussian and uniform noise, SINIFGSM, VMIFGSM, VNIFGSM, SPSA, PIFGSM,
  PIFGSMPP), the L2 ones (CW, PGDL2, PGDRSL2, DeepFool, EADEN), EADL1, the L0 ones (SparseFool,
  Pixle with its pixel mappings and per-iteration updates, JSMA), FAB (Linf with restarts, L2, targeted and
  multi-targeted), Square (Linf and L2, margin and ce losses), AutoAttack (its standard, plus and rand
  versions, shrunk to a few steps), the noise attacks GN and VANILA, and the wrappers MultiAttack and LGV
  (collecting its models by SGD on an in-memory loader, or given collected models). Targeted attacks are
  set the ways the library offers: random targets, least likely targets, the given labels as targets,
  and a target map function; ``.normalized`` models declare a mean and std with ``set_normalization_used``
  (and get normalized images), ``.model_training`` ones attack with the model in training mode. OnePixel is
  left out: compiling it fails with an error inside Dynamo (fake-tensor propagation of its vendored numpy
  differential evolution), not with a graph break, so it never runs under ``torch.compile``.

Random inputs and weights, nothing downloaded. ``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
IMAGES, CHANNELS, SIDE, CLASSES = 2, 3, 16, 10
MEAN, STD = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)
EPS, ALPHA = 8 / 255, 2 / 255

# Model name -> (attack class, constructor keywords, modes). Modes: "random" (set_mode_targeted_random),
# "least" (set_mode_targeted_least_likely), "label" (set_mode_targeted_by_label), "function"
# (set_mode_targeted_by_function), "normalized" (set_normalization_used), "training"
# (set_model_training_mode with the whole model and its dropout in training mode), "single" (one image: Pixle's
# per-iteration updates take one at a time), "loaded" (LGV given collected models instead of collecting them).
ATTACKS: dict[str, tuple[str, dict[str, Any], tuple[str, ...]]] = {
    # no-perturbation and noise attacks
    "VANILA": ("VANILA", {}, ()),
    "GN": ("GN", {"std": 0.1}, ()),
    "GN.normalized": ("GN", {"std": 0.05}, ("normalized",)),
    # Linf, one step
    "FGSM": ("FGSM", {"eps": EPS}, ()),
    "FGSM.targeted_random": ("FGSM", {"eps": EPS}, ("random",)),
    "FGSM.normalized": ("FGSM", {"eps": EPS}, ("normalized",)),
    "FFGSM": ("FFGSM", {"eps": EPS, "alpha": 10 / 255}, ()),
    "FFGSM.targeted_label": ("FFGSM", {"eps": EPS, "alpha": 10 / 255}, ("label",)),
    # Linf, iterative
    "BIM": ("BIM", {"eps": EPS, "alpha": ALPHA, "steps": 2}, ()),
    "BIM.targeted_label": ("BIM", {"eps": EPS, "alpha": ALPHA, "steps": 2}, ("label",)),
    "BIM.steps_from_eps": ("BIM", {"eps": 1 / 255, "alpha": ALPHA, "steps": 0}, ()),
    "RFGSM": ("RFGSM", {"eps": EPS, "alpha": ALPHA, "steps": 2}, ()),
    "RFGSM.targeted_random": ("RFGSM", {"eps": EPS, "alpha": ALPHA, "steps": 2}, ("random",)),
    "PGD": ("PGD", {"eps": EPS, "alpha": ALPHA, "steps": 3}, ()),
    "PGD.no_random_start": ("PGD", {"eps": EPS, "alpha": ALPHA, "steps": 2, "random_start": False}, ()),
    "PGD.targeted_random": ("PGD", {"eps": EPS, "alpha": ALPHA, "steps": 2}, ("random",)),
    "PGD.targeted_least_likely": ("PGD", {"eps": EPS, "alpha": ALPHA, "steps": 2}, ("least",)),
    "PGD.targeted_label": ("PGD", {"eps": EPS, "alpha": ALPHA, "steps": 2}, ("label",)),
    "PGD.targeted_function": ("PGD", {"eps": EPS, "alpha": ALPHA, "steps": 2}, ("function",)),
    "PGD.normalized": ("PGD", {"eps": EPS, "alpha": ALPHA, "steps": 2}, ("normalized",)),
    "PGD.model_training": ("PGD", {"eps": EPS, "alpha": ALPHA, "steps": 2}, ("training",)),
    "EOTPGD": ("EOTPGD", {"eps": EPS, "alpha": ALPHA, "steps": 2, "eot_iter": 2}, ()),
    "EOTPGD.targeted_random.no_random_start": ("EOTPGD", {"eps": EPS, "alpha": ALPHA, "steps": 2, "eot_iter": 2,
                                                          "random_start": False}, ("random",)),
    "TPGD": ("TPGD", {"eps": EPS, "alpha": ALPHA, "steps": 2}, ()),
    "TPGD.normalized": ("TPGD", {"eps": EPS, "alpha": ALPHA, "steps": 2}, ("normalized",)),
    "MIFGSM": ("MIFGSM", {"eps": EPS, "alpha": ALPHA, "steps": 2, "decay": 1.0}, ()),
    "MIFGSM.targeted_random": ("MIFGSM", {"eps": EPS, "alpha": ALPHA, "steps": 2}, ("random",)),
    "NIFGSM": ("NIFGSM", {"eps": EPS, "alpha": ALPHA, "steps": 2}, ()),
    "NIFGSM.targeted_label": ("NIFGSM", {"eps": EPS, "alpha": ALPHA, "steps": 2}, ("label",)),
    "SINIFGSM": ("SINIFGSM", {"eps": EPS, "alpha": ALPHA, "steps": 2, "m": 2}, ()),
    "SINIFGSM.targeted_random": ("SINIFGSM", {"eps": EPS, "alpha": ALPHA, "steps": 2, "m": 2}, ("random",)),
    "VMIFGSM": ("VMIFGSM", {"eps": EPS, "alpha": ALPHA, "steps": 2, "N": 2}, ()),
    "VMIFGSM.targeted_label": ("VMIFGSM", {"eps": EPS, "alpha": ALPHA, "steps": 2, "N": 2}, ("label",)),
    "VNIFGSM": ("VNIFGSM", {"eps": EPS, "alpha": ALPHA, "steps": 2, "N": 2}, ()),
    "VNIFGSM.targeted_random": ("VNIFGSM", {"eps": EPS, "alpha": ALPHA, "steps": 2, "N": 2}, ("random",)),
    "UPGD": ("UPGD", {"eps": EPS, "alpha": ALPHA, "steps": 2}, ()),
    "UPGD.dlr.random_start": ("UPGD", {"eps": EPS, "alpha": ALPHA, "steps": 2, "loss": "dlr",
                                       "random_start": True}, ()),
    "UPGD.margin.eot": ("UPGD", {"eps": EPS, "alpha": ALPHA, "steps": 2, "loss": "margin", "eot_iter": 2}, ()),
    "UPGD.targeted_random": ("UPGD", {"eps": EPS, "alpha": ALPHA, "steps": 2}, ("random",)),
    "UPGD.dlr.targeted_label": ("UPGD", {"eps": EPS, "alpha": ALPHA, "steps": 2, "loss": "dlr"}, ("label",)),
    "DIFGSM": ("DIFGSM", {"eps": EPS, "alpha": ALPHA, "steps": 2}, ()),
    "DIFGSM.decay.random_start": ("DIFGSM", {"eps": EPS, "alpha": ALPHA, "steps": 2, "decay": 1.0,
                                             "diversity_prob": 1.0, "random_start": True}, ()),
    "DIFGSM.targeted_random": ("DIFGSM", {"eps": EPS, "alpha": ALPHA, "steps": 2}, ("random",)),
    "TIFGSM": ("TIFGSM", {"eps": EPS, "alpha": ALPHA, "steps": 2, "len_kernel": 5}, ()),
    "TIFGSM.linear.random_start": ("TIFGSM", {"eps": EPS, "alpha": ALPHA, "steps": 2, "kernel_name": "linear",
                                              "len_kernel": 5, "random_start": True, "decay": 1.0}, ()),
    "TIFGSM.uniform.targeted_label": ("TIFGSM", {"eps": EPS, "alpha": ALPHA, "steps": 2, "kernel_name": "uniform",
                                                 "len_kernel": 3, "resize_rate": 1.1}, ("label",)),
    "Jitter": ("Jitter", {"eps": EPS, "alpha": ALPHA, "steps": 2}, ()),
    "Jitter.no_random_start": ("Jitter", {"eps": EPS, "alpha": ALPHA, "steps": 2, "random_start": False}, ()),
    "Jitter.targeted_random": ("Jitter", {"eps": EPS, "alpha": ALPHA, "steps": 2}, ("random",)),
    "PGDRS": ("PGDRS", {"eps": EPS, "alpha": ALPHA, "steps": 2, "noise_batch_size": 2}, ()),
    "PGDRS.uniform.targeted_label": ("PGDRS", {"eps": EPS, "alpha": ALPHA, "steps": 2, "noise_type": "uniform",
                                               "noise_batch_size": 2}, ("label",)),
    "PGDRS.batch_max": ("PGDRS", {"eps": EPS, "alpha": ALPHA, "steps": 2, "noise_batch_size": 3,
                                  "batch_max": 4}, ()),
    "SPSA": ("SPSA", {"eps": 0.1, "nb_iter": 2, "nb_sample": 4, "max_batch_size": 4}, ()),
    "SPSA.targeted_random.batches": ("SPSA", {"eps": 0.1, "nb_iter": 1, "nb_sample": 6, "max_batch_size": 4},
                                     ("random",)),
    "PIFGSM": ("PIFGSM", {"num_iter_set": 2}, ()),
    "PIFGSMPP": ("PIFGSMPP", {"num_iter_set": 2}, ()),
    "PIFGSMPP.targeted_random": ("PIFGSMPP", {"num_iter_set": 2}, ("random",)),
    "APGD": ("APGD", {"eps": EPS, "steps": 3}, ()),
    "APGD.dlr": ("APGD", {"eps": EPS, "steps": 3, "loss": "dlr"}, ()),
    "APGD.L2": ("APGD", {"norm": "L2", "eps": 0.5, "steps": 3}, ()),
    "APGD.eot.restarts": ("APGD", {"eps": EPS, "steps": 2, "eot_iter": 2, "n_restarts": 2}, ()),
    "APGDT": ("APGDT", {"eps": EPS, "steps": 3, "n_classes": 3}, ()),
    "APGDT.L2": ("APGDT", {"norm": "L2", "eps": 0.5, "steps": 2, "n_classes": 3}, ()),
    # L2
    "CW": ("CW", {"c": 1, "kappa": 0, "steps": 3, "lr": 0.01}, ()),
    "CW.targeted_random.kappa": ("CW", {"c": 0.5, "kappa": 0.1, "steps": 2, "lr": 0.01}, ("random",)),
    "PGDL2": ("PGDL2", {"eps": 0.5, "alpha": 0.1, "steps": 2}, ()),
    "PGDL2.no_random_start": ("PGDL2", {"eps": 0.5, "alpha": 0.1, "steps": 2, "random_start": False}, ()),
    "PGDL2.targeted_label": ("PGDL2", {"eps": 0.5, "alpha": 0.1, "steps": 2}, ("label",)),
    "PGDRSL2": ("PGDRSL2", {"eps": 0.5, "alpha": 0.1, "steps": 2, "noise_batch_size": 2}, ()),
    "PGDRSL2.uniform.targeted_random": ("PGDRSL2", {"eps": 0.5, "alpha": 0.1, "steps": 2, "noise_type": "uniform",
                                                    "noise_batch_size": 2}, ("random",)),
    "DeepFool": ("DeepFool", {"steps": 2, "overshoot": 0.02}, ()),
    "EADEN": ("EADEN", {"binary_search_steps": 2, "max_iterations": 2, "abort_early": False}, ()),
    "EADEN.abort_early": ("EADEN", {"binary_search_steps": 1, "max_iterations": 10}, ()),
    "EADEN.targeted_label": ("EADEN", {"binary_search_steps": 2, "max_iterations": 2, "kappa": 0.1,
                                       "abort_early": False}, ("label",)),
    # L1
    "EADL1": ("EADL1", {"binary_search_steps": 1, "max_iterations": 10}, ()),
    "EADL1.no_abort_early.targeted_random": ("EADL1", {"binary_search_steps": 2, "max_iterations": 3,
                                                       "abort_early": False}, ("random",)),
    # L0
    "SparseFool": ("SparseFool", {"steps": 2, "lam": 3}, ()),
    "Pixle": ("Pixle", {"x_dimensions": (2, 4), "y_dimensions": (2, 4), "restarts": 2, "max_iterations": 2}, ()),
    "Pixle.similarity": ("Pixle", {"x_dimensions": (0.1, 0.2), "y_dimensions": (0.1, 0.2),
                                   "pixel_mapping": "similarity", "restarts": 2, "max_iterations": 2}, ()),
    "Pixle.distance_random": ("Pixle", {"x_dimensions": 2, "y_dimensions": 2, "pixel_mapping": "distance_random",
                                        "restarts": 2, "max_iterations": 2}, ()),
    "Pixle.iterative": ("Pixle", {"x_dimensions": (2, 4), "y_dimensions": (2, 4), "restarts": 1,
                                  "max_iterations": 2, "update_each_iteration": True}, ("single",)),
    "Pixle.similarity_random.targeted_random": ("Pixle", {"x_dimensions": (2, 3), "y_dimensions": (2, 3),
                                                          "pixel_mapping": "similarity_random", "restarts": 2,
                                                          "max_iterations": 2}, ("random",)),
    "JSMA": ("JSMA", {"theta": 1.0, "gamma": 0.02}, ()),
    "JSMA.targeted_label": ("JSMA", {"theta": 1.0, "gamma": 0.02}, ("label",)),
    # Linf, L2, L1
    "FAB": ("FAB", {"eps": EPS, "steps": 2, "n_classes": CLASSES}, ()),
    "FAB.L2": ("FAB", {"norm": "L2", "eps": 0.5, "steps": 2, "n_classes": CLASSES}, ()),
    "FAB.restarts": ("FAB", {"eps": EPS, "steps": 2, "n_restarts": 2, "n_classes": CLASSES}, ()),
    "FAB.multi_targeted": ("FAB", {"eps": EPS, "steps": 2, "multi_targeted": True, "n_classes": 3}, ()),
    "FAB.targeted_random": ("FAB", {"eps": EPS, "steps": 2, "n_classes": CLASSES}, ("random",)),
    "Square": ("Square", {"eps": EPS, "n_queries": 3}, ()),
    "Square.L2": ("Square", {"norm": "L2", "eps": 0.5, "n_queries": 3}, ()),
    "Square.ce.restarts": ("Square", {"eps": EPS, "n_queries": 3, "loss": "ce", "n_restarts": 2,
                                      "resc_schedule": False}, ()),
    "Square.targeted_random": ("Square", {"eps": EPS, "n_queries": 3}, ("random",)),
    "AutoAttack": ("AutoAttack", {"eps": EPS, "version": "standard", "n_classes": CLASSES, "seed": 0}, ()),
    "AutoAttack.L2": ("AutoAttack", {"norm": "L2", "eps": 0.5, "version": "standard", "n_classes": CLASSES,
                                     "seed": 0}, ()),
    "AutoAttack.plus": ("AutoAttack", {"eps": EPS, "version": "plus", "n_classes": CLASSES, "seed": 0}, ()),
    "AutoAttack.rand": ("AutoAttack", {"eps": EPS, "version": "rand", "n_classes": CLASSES, "seed": 0}, ()),
    # wrappers
    "MultiAttack": ("MultiAttack", {}, ()),
    "MultiAttack.normalized": ("MultiAttack", {}, ("normalized",)),
    "LGV": ("LGV", {"lr": 0.05, "epochs": 1, "nb_models_epoch": 2, "verbose": False, "eps": EPS, "alpha": ALPHA,
                    "steps": 2}, ()),
    "LGV.loaded.n_grad2.targeted_random": ("LGV", {"n_grad": 2, "verbose": False, "eps": EPS, "alpha": ALPHA,
                                                   "steps": 2}, ("random", "loaded")),
}


def names() -> list[str]:
    return list(ATTACKS)


def _attack_module(attack: Any, classifier: Any) -> Any:
    """``attack(images, labels)`` as a ``gt_calls.Call`` whose forward enables gradients (users call attacks outside
    ``no_grad``); the classifier is kept as a submodule, so the harness's train / eval switch reaches it as a
    user's model would be."""
    import torch

    from gt_calls import Call

    class _Attack(Call):
        def __init__(self) -> None:
            super().__init__(attack)
            self.classifier = classifier

        def forward(self, *args: Any) -> Any:
            with torch.enable_grad():
                return self.function(*args)

    return _Attack()


def _classifier() -> Any:
    import torch
    from torch import nn

    torch.manual_seed(0)
    return nn.Sequential(
        nn.Conv2d(CHANNELS, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.AvgPool2d(2), nn.Flatten(),
        nn.Dropout(0.1), nn.Linear(4 * (SIDE // 2) ** 2, CLASSES),
    )


def _shrink(attack: Any) -> None:
    """AutoAttack's sub-attacks at a few steps, queries and EOT draws (it builds them at 10 steps, 5000 queries)."""
    for sub in attack._autoattack.attacks:
        for field, value in (("steps", 2), ("n_queries", 3), ("eot_iter", 1), ("n_restarts", 1),
                             ("n_target_classes", 2)):
            if hasattr(sub, field):
                setattr(sub, field, value)


def build(name: str) -> Built:
    import copy

    import torch
    import torchattacks

    cls, kwargs, modes = ATTACKS[name]
    classifier = _classifier().eval()
    count = 1 if "single" in modes else IMAGES
    images = torch.rand(count, CHANNELS, SIDE, SIDE, generator=torch.Generator().manual_seed(1))
    mean = torch.tensor(MEAN).reshape(1, CHANNELS, 1, 1)
    std = torch.tensor(STD).reshape(1, CHANNELS, 1, 1)
    with torch.no_grad():
        inputs = (images - mean) / std if "normalized" in modes else images
        labels = classifier(inputs).argmax(1)
    if "label" in modes:  # the given labels are the targets: another class than the prediction
        labels = (labels + 1) % CLASSES
    if cls == "MultiAttack":
        attack = torchattacks.MultiAttack([
            torchattacks.FGSM(classifier, eps=1 / 255),
            torchattacks.PGD(classifier, eps=EPS, alpha=ALPHA, steps=2),
            torchattacks.CW(classifier, steps=2),
        ])
    elif cls == "LGV":
        from torch.utils.data import DataLoader, TensorDataset

        train = TensorDataset(torch.rand(8, CHANNELS, SIDE, SIDE), torch.randint(0, CLASSES, (8,)))
        attack = torchattacks.LGV(classifier, DataLoader(train, batch_size=2), **kwargs)
        if "loaded" in modes:
            attack.load_models([copy.deepcopy(classifier).eval() for _ in range(3)])
    else:
        attack = getattr(torchattacks, cls)(classifier, **kwargs)
    if cls == "AutoAttack":
        _shrink(attack)
    if "normalized" in modes:
        attack.set_normalization_used(mean=list(MEAN), std=list(STD))
    if "training" in modes:
        attack.set_model_training_mode(model_training=True, batchnorm_training=False, dropout_training=True)
    if "random" in modes:
        attack.set_mode_targeted_random(quiet=True)
    if "least" in modes:
        attack.set_mode_targeted_least_likely(kth_min=1, quiet=True)
    if "label" in modes:
        attack.set_mode_targeted_by_label(quiet=True)
    if "function" in modes:
        attack.set_mode_targeted_by_function(lambda images, labels: (labels + 2) % CLASSES, quiet=True)
    return _attack_module(attack, classifier), (inputs, labels), {}
