"""Ground-truth bench, foolbox: foolbox 3.3.4's adversarial attacks run on a tiny PyTorch classifier.

foolbox's attacks are not modules: users wrap a classifier in a ``PyTorchModel`` (``fmodel =
fb.PyTorchModel(net, bounds=(0, 1), preprocessing=dict(mean=..., std=..., axis=-3))``), build an attack
(``fb.attacks.LinfPGD(steps=...)``) and call it on a batch with labels or a criterion and one or several
epsilons (``raw, clipped, success = attack(fmodel, images, labels, epsilons=[0.01, 0.03])``). The attack
turns the tensors into eagerpy tensors, wraps the labels in ``Misclassification`` (or takes the
``TargetedMisclassification`` it is given), runs its ``run`` loop per epsilon (fixed-epsilon attacks) or once
with an early stop (minimization attacks: gradients through ``ep.value_and_grad``, projections onto the
epsilon ball, binary searches, numpy bookkeeping, random restarts, decision-based random walks) and clips the
result. So each model here is a bench module (a ``gt_calls.Run`` holding the classifier, so that the
harness's train / eval switch reaches it as a user's model would be) whose forward calls the attack on
``(images, labels)`` with gradients enabled, as users call it outside ``no_grad``. The classifier is built
here from ``torch.nn`` (a convolution, ReLU, pooling and a linear head over 10 classes, without batch norm
or dropout, so that its predictions are the same in train and eval mode) with random weights, on 2 RGB
images of 8 x 8 in [0, 1]; the labels are its own predictions, so that the attacks work on correctly
classified inputs. Every attack takes 1 to 3 steps, binary-search steps, repeats or
queries; the decision-based attacks that need adversarial starting points get images of the same bounds
that the classifier already puts in another class.

- ``ATTACKS``: the attack classes of ``foolbox.attacks`` at their main options: the gradient attacks (FGSM, FGM
  and L1 fast gradient, with a random start, untargeted only, as they refuse a targeted criterion; Linf, L2 and
  L1 PGD with and without a random start, an absolute step size, and their Adam variants; the basic iterative
  methods and their Adam variants; the momentum iterative methods; sparse L1 descent; virtual adversarial), DDN,
  the L2 and Linf DeepFool attacks (logits and cross-entropy losses, all candidates), Carlini-Wagner L2, EAD
  (elastic-net and L1 decision rules), NewtonFool, the fast minimum-norm attacks (L0, L1, L2, Linf), the
  decision-based attacks (Boundary, HopSkipJump with its L2 / Linf constraints and grid search, Pointwise),
  contrast reduction (fixed epsilon, binary and linear search), salt and pepper, linearly blended uniform noise,
  inversion, the dataset attack (fed a pool of images), the spatial attack (grid search and random steps) and
  every additive noise attack (Gaussian and uniform, L2, clipping-aware and Linf, single and repeated). The
  options are how users call them: labels or an explicit ``Misclassification`` / ``TargetedMisclassification``
  criterion or both combined with ``&`` (for a decision-based attack: the gradient attacks refuse the
  combination), one epsilon or a list (``None`` included for minimization attacks), ``attack.run(...)`` directly,
  ``attack.repeat(2)``, a ``PyTorchModel`` with mean / std preprocessing (and a flipped axis) or other bounds
  (``transform_bounds``), starting points or an ``init_attack``, and a PGD whose gradient is estimated by
  evolutionary strategies (``gradient_estimators.es_gradient_estimator``);
- ``FUNCTIONS``: the helpers users call around attacks: ``fb.accuracy``, the ``PyTorchModel`` itself (with
  preprocessing, and behind a ``TransformBoundsWrapper``), the distances (``l2`` / ``linf`` / ``l0`` / ``l1``)
  and the criteria called on outputs;
- ``TRAIN``: bench adversarial-training steps: an FGSM or PGD attack on the batch, then the classifier's
  cross-entropy on the adversarial images, ``backward()`` and an SGD step.

Left out: ``BinarizationRefinementAttack`` (it needs a model that binarizes its inputs), ``fb.samples`` and the
zoo (they load data and weights from disk or the network), and the Brendel-Bethge attacks, ``GaussianBlurAttack``
and ``GenAttack``, whose compiling fails with an error inside Dynamo (numpy arrays it cannot trace in numba's
jitted optimizers, in SciPy's ``gaussian_filter`` and in ``np.random.choice`` over a tensor's probabilities), not
with a graph break, so they never run compiled; so does ``LpDistance.clip_perturbation`` called on its own (the
attacks call it after their loops, where it compiles). Random inputs and weights, nothing downloaded.
``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
IMAGES, CHANNELS, SIDE, CLASSES = 2, 3, 8, 10
MEAN, STD = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)
EPS = 8 / 255
EPSILONS = [0.0, 2 / 255, 8 / 255]

# Model name -> (attack class in ``foolbox.attacks``, constructor keywords, epsilons, options). Options:
# "targeted" (a TargetedMisclassification criterion), "criterion" (an explicit Misclassification), "and"
# (Misclassification & TargetedMisclassification), "run" (``attack.run`` called directly), "repeat"
# (``attack.repeat(2)``), "preprocessing" (a PyTorchModel with mean / std preprocessing), "flip" (the same with
# a flipped channel axis), "bounds" (the model moved to bounds (-1, 1) by ``transform_bounds``, images in
# (-1, 1)), "starting" (adversarial starting points given), "init" (an ``init_attack`` given), "es" (the
# gradient estimated by evolutionary strategies), "l2" (the L2 distance given to a flexible-distance attack),
# "linf" (the Linf distance), "fed" (DatasetAttack fed a pool first).
ATTACKS: dict[str, tuple[str, dict[str, Any], Any, tuple[str, ...]]] = {
    # fast gradient
    "FGSM": ("FGSM", {}, EPS, ()),
    "FGSM.random_start": ("FGSM", {"random_start": True}, EPS, ()),
    "FGSM.criterion": ("FGSM", {}, EPS, ("criterion",)),
    "FGSM.epsilons": ("FGSM", {}, EPSILONS, ()),
    "FGSM.preprocessing": ("FGSM", {}, EPS, ("preprocessing",)),
    "FGSM.run": ("FGSM", {}, EPS, ("run",)),
    "FGM": ("FGM", {}, 0.5, ()),
    "FGM.epsilons": ("FGM", {}, [0.1, 0.5], ()),
    "L1FastGradientAttack": ("L1FastGradientAttack", {"random_start": True}, 2.0, ()),
    # projected gradient descent
    "LinfPGD": ("LinfPGD", {"steps": 3}, EPS, ()),
    "LinfPGD.no_random_start": ("LinfPGD", {"steps": 2, "random_start": False}, EPS, ()),
    "LinfPGD.abs_stepsize": ("LinfPGD", {"steps": 2, "abs_stepsize": 1 / 255}, EPS, ()),
    "LinfPGD.targeted": ("LinfPGD", {"steps": 2}, EPS, ("targeted",)),
    "LinfPGD.criterion": ("LinfPGD", {"steps": 2}, EPS, ("criterion",)),
    "LinfPGD.epsilons": ("LinfPGD", {"steps": 2}, EPSILONS, ()),
    "LinfPGD.repeat": ("LinfPGD", {"steps": 2}, EPSILONS, ("repeat",)),
    "LinfPGD.preprocessing.flip": ("LinfPGD", {"steps": 2}, EPS, ("preprocessing", "flip")),
    "LinfPGD.transform_bounds": ("LinfPGD", {"steps": 2}, 2 * EPS, ("bounds",)),
    "LinfPGD.run": ("LinfPGD", {"steps": 2}, EPS, ("run",)),
    "LinfPGD.es_gradient_estimator": ("LinfPGD", {"steps": 2}, EPS, ("es",)),
    "L2PGD": ("L2PGD", {"steps": 2}, 0.5, ()),
    "L2PGD.targeted.no_random_start": ("L2PGD", {"steps": 2, "random_start": False}, 0.5, ("targeted",)),
    "L1PGD": ("L1PGD", {"steps": 2}, 2.0, ()),
    "LinfAdamPGD": ("LinfAdamPGD", {"steps": 2}, EPS, ()),
    "L2AdamPGD.targeted": ("L2AdamPGD", {"steps": 2}, 0.5, ("targeted",)),
    "L1AdamPGD": ("L1AdamPGD", {"steps": 2}, 2.0, ()),
    # basic iterative and momentum
    "LinfBasicIterativeAttack": ("LinfBasicIterativeAttack", {"steps": 2}, EPS, ()),
    "L2BasicIterativeAttack.random_start": ("L2BasicIterativeAttack", {"steps": 2, "random_start": True}, 0.5, ()),
    "L1BasicIterativeAttack": ("L1BasicIterativeAttack", {"steps": 2}, 2.0, ()),
    "LinfAdamBasicIterativeAttack": ("LinfAdamBasicIterativeAttack", {"steps": 2}, EPS, ()),
    "L2AdamBasicIterativeAttack": ("L2AdamBasicIterativeAttack", {"steps": 2}, 0.5, ()),
    "MIFGSM": ("MIFGSM", {"steps": 2}, EPS, ()),
    "MIFGSM.targeted.random_start": ("MIFGSM", {"steps": 2, "random_start": True, "momentum": 0.5}, EPS,
                                     ("targeted",)),
    "L2MomentumIterativeFastGradientMethod": ("L2MomentumIterativeFastGradientMethod", {"steps": 2}, 0.5, ()),
    "L1MomentumIterativeFastGradientMethod": ("L1MomentumIterativeFastGradientMethod", {"steps": 2}, 2.0, ()),
    "SparseL1DescentAttack": ("SparseL1DescentAttack", {"steps": 2}, 2.0, ()),
    "SparseL1DescentAttack.random_start": ("SparseL1DescentAttack", {"steps": 2, "random_start": True,
                                                                     "quantile": 0.9}, 2.0, ()),
    "VirtualAdversarialAttack": ("VirtualAdversarialAttack", {"steps": 2}, 0.5, ()),
    # minimization, gradient-based
    "DDNAttack": ("DDNAttack", {"steps": 3}, None, ()),
    "DDNAttack.targeted.epsilons": ("DDNAttack", {"steps": 2}, [0.5, 1.0, None], ("targeted",)),
    "L2DeepFoolAttack": ("L2DeepFoolAttack", {"steps": 2}, None, ()),
    "L2DeepFoolAttack.crossentropy": ("L2DeepFoolAttack", {"steps": 2, "loss": "crossentropy"}, None, ()),
    "LinfDeepFoolAttack.all_candidates": ("LinfDeepFoolAttack", {"steps": 2, "candidates": None}, [EPS, None], ()),
    "L2CarliniWagnerAttack": ("L2CarliniWagnerAttack", {"binary_search_steps": 2, "steps": 3}, None, ()),
    "L2CarliniWagnerAttack.targeted.confidence": ("L2CarliniWagnerAttack", {"binary_search_steps": 1, "steps": 2,
                                                                             "confidence": 0.1}, None, ("targeted",)),
    "L2CarliniWagnerAttack.no_abort_early": ("L2CarliniWagnerAttack", {"binary_search_steps": 1, "steps": 2,
                                                                        "abort_early": False}, [0.5, None], ()),
    "EADAttack": ("EADAttack", {"binary_search_steps": 2, "steps": 3}, None, ()),
    "EADAttack.L1.targeted": ("EADAttack", {"binary_search_steps": 1, "steps": 2, "decision_rule": "L1"}, None,
                              ("targeted",)),
    "NewtonFoolAttack": ("NewtonFoolAttack", {"steps": 2}, None, ()),
    "L2FMNAttack": ("L2FMNAttack", {"steps": 3}, None, ()),
    "LInfFMNAttack.targeted": ("LInfFMNAttack", {"steps": 2}, None, ("targeted",)),
    "L1FMNAttack": ("L1FMNAttack", {"steps": 2}, None, ()),
    "L0FMNAttack": ("L0FMNAttack", {"steps": 2}, None, ()),
    "L2FMNAttack.starting_points": ("L2FMNAttack", {"steps": 2, "binary_search_steps": 2}, None, ("starting",)),
    # decision-based
    "BoundaryAttack.starting_points": ("BoundaryAttack", {"steps": 3}, None, ("starting",)),
    "BoundaryAttack.init_attack": ("BoundaryAttack", {"steps": 2}, None, ("init",)),
    "HopSkipJumpAttack.starting_points": ("HopSkipJumpAttack", {"steps": 1, "initial_gradient_eval_steps": 4,
                                                                "max_gradient_eval_steps": 8}, None, ("starting",)),
    "HopSkipJumpAttack.linf.grid_search": ("HopSkipJumpAttack", {"steps": 1, "initial_gradient_eval_steps": 4,
                                                                 "max_gradient_eval_steps": 8, "constraint": "linf",
                                                                 "stepsize_search": "grid_search"}, None,
                                           ("starting",)),
    "PointwiseAttack.starting_points": ("PointwiseAttack", {}, None, ("starting",)),
    "PointwiseAttack.no_l2_binary_search": ("PointwiseAttack", {"l2_binary_search": False}, None, ("starting",)),
    # image transformations and noise, minimization
    "L2ContrastReductionAttack": ("L2ContrastReductionAttack", {}, 0.5, ()),
    "BinarySearchContrastReductionAttack": ("BinarySearchContrastReductionAttack", {"binary_search_steps": 3}, None,
                                            ("l2",)),
    "LinearSearchContrastReductionAttack": ("LinearSearchContrastReductionAttack", {"steps": 3}, [0.5, None],
                                            ("linf",)),
    "SaltAndPepperNoiseAttack": ("SaltAndPepperNoiseAttack", {"steps": 3}, None, ()),
    "SaltAndPepperNoiseAttack.per_channel": ("SaltAndPepperNoiseAttack", {"steps": 2, "across_channels": False},
                                             None, ()),
    "LinearSearchBlendedUniformNoiseAttack": ("LinearSearchBlendedUniformNoiseAttack", {"directions": 2, "steps": 3},
                                              None, ("l2",)),
    "LinearSearchBlendedUniformNoiseAttack.and_criterion": ("LinearSearchBlendedUniformNoiseAttack",
                                                            {"directions": 2, "steps": 3}, [0.5, None], ("l2", "and")),
    "InversionAttack": ("InversionAttack", {}, None, ("l2",)),
    "DatasetAttack": ("DatasetAttack", {}, None, ("l2", "fed")),
    "SpatialAttack.grid_search": ("SpatialAttack", {"num_translations": 2, "num_rotations": 2}, None, ()),
    "SpatialAttack.random_steps": ("SpatialAttack", {"grid_search": False, "random_steps": 2}, None, ()),
    # additive noise, fixed epsilon
    "L2AdditiveGaussianNoiseAttack": ("L2AdditiveGaussianNoiseAttack", {}, 0.5, ()),
    "L2AdditiveUniformNoiseAttack.epsilons": ("L2AdditiveUniformNoiseAttack", {}, [0.1, 0.5], ()),
    "L2ClippingAwareAdditiveGaussianNoiseAttack": ("L2ClippingAwareAdditiveGaussianNoiseAttack", {}, 0.5, ()),
    "L2ClippingAwareAdditiveUniformNoiseAttack": ("L2ClippingAwareAdditiveUniformNoiseAttack", {}, 0.5, ()),
    "LinfAdditiveUniformNoiseAttack": ("LinfAdditiveUniformNoiseAttack", {}, EPS, ()),
    "L2RepeatedAdditiveGaussianNoiseAttack": ("L2RepeatedAdditiveGaussianNoiseAttack", {"repeats": 3}, 0.5, ()),
    "L2RepeatedAdditiveUniformNoiseAttack.no_check_trivial": ("L2RepeatedAdditiveUniformNoiseAttack",
                                                              {"repeats": 2, "check_trivial": False}, 0.5, ()),
    "L2ClippingAwareRepeatedAdditiveGaussianNoiseAttack": ("L2ClippingAwareRepeatedAdditiveGaussianNoiseAttack",
                                                           {"repeats": 2}, 0.5, ()),
    "L2ClippingAwareRepeatedAdditiveUniformNoiseAttack": ("L2ClippingAwareRepeatedAdditiveUniformNoiseAttack",
                                                          {"repeats": 2}, 0.5, ()),
    "LinfRepeatedAdditiveUniformNoiseAttack.targeted": ("LinfRepeatedAdditiveUniformNoiseAttack", {"repeats": 2},
                                                        EPS, ("targeted",)),
}
FUNCTIONS = ("accuracy", "PyTorchModel", "PyTorchModel.preprocessing", "PyTorchModel.transform_bounds.wrapper",
             "distances", "criteria.Misclassification",
             "criteria.TargetedMisclassification", "criteria.and")
TRAIN = ("adversarial_training.FGSM", "adversarial_training.LinfPGD")


def names() -> list[str]:
    return list(ATTACKS) + list(FUNCTIONS) + list(TRAIN)


def _classifier() -> Any:
    import torch
    from torch import nn

    torch.manual_seed(0)
    return nn.Sequential(
        nn.Conv2d(CHANNELS, 4, 3, padding=1), nn.ReLU(), nn.AvgPool2d(2), nn.Flatten(),
        nn.Linear(4 * (SIDE // 2) ** 2, CLASSES),
    )


def _fmodel(classifier: Any, options: tuple[str, ...]) -> Any:
    import foolbox as fb

    if "preprocessing" in options:
        pre: dict[str, Any] = {"mean": list(MEAN), "std": list(STD), "axis": -3}
        if "flip" in options:
            pre["flip_axis"] = -3
        return fb.PyTorchModel(classifier, bounds=(0, 1), device="cpu", preprocessing=pre)
    fmodel = fb.PyTorchModel(classifier, bounds=(0, 1), device="cpu")
    if "bounds" in options:
        return fmodel.transform_bounds((-1, 1))
    return fmodel


def _inputs(fmodel: Any, options: tuple[str, ...]) -> tuple[Any, Any]:
    """Images within the model's bounds and the model's own predictions as labels."""
    import torch

    images = torch.rand(IMAGES, CHANNELS, SIDE, SIDE, generator=torch.Generator().manual_seed(1))
    if "bounds" in options:
        images = images * 2 - 1
    with torch.no_grad():
        labels = fmodel(images).argmax(-1)
    return images, labels


def _starting_points(fmodel: Any, labels: Any, bounds: tuple[float, float]) -> Any:
    """For each image, a random image of the same bounds that the classifier puts in another class."""
    import torch

    pool = torch.rand(256, CHANNELS, SIDE, SIDE, generator=torch.Generator().manual_seed(5))
    pool = pool * (bounds[1] - bounds[0]) + bounds[0]
    with torch.no_grad():
        predicted = fmodel(pool).argmax(-1)
    chosen = []
    for label in labels.tolist():
        found = (predicted != label).nonzero().flatten()
        chosen.append(pool[found[0]] if len(found) else pool.mean(0) * 0 + bounds[1])
    return torch.stack(chosen)


def _attack(name: str) -> Built:
    import torch

    import foolbox as fb
    from gt_calls import Run

    cls, keywords, epsilons, options = ATTACKS[name]
    classifier = _classifier().eval()
    keywords = dict(keywords)
    if "init" in options:
        keywords["init_attack"] = fb.attacks.LinearSearchBlendedUniformNoiseAttack(directions=4, steps=8)
    if "l2" in options:
        keywords["distance"] = fb.distances.l2
    if "linf" in options:
        keywords["distance"] = fb.distances.linf
    if "es" in options:
        estimator = fb.gradient_estimators.es_gradient_estimator(fb.attacks.LinfPGD, samples=4, sigma=0.01,
                                                                 bounds=(0, 1), clip=True)
        attack = estimator(**keywords)
    else:
        attack = getattr(fb.attacks, cls)(**keywords)
    if "repeat" in options:
        attack = attack.repeat(2)
    fmodel = _fmodel(classifier, options)
    images, labels = _inputs(fmodel, options)
    targets = (labels + 1) % CLASSES
    call: dict[str, Any] = {}
    if "starting" in options:
        call["starting_points"] = _starting_points(fmodel, labels, fmodel.bounds)
    if "fed" in options:
        pool = torch.rand(6, CHANNELS, SIDE, SIDE, generator=torch.Generator().manual_seed(6))
        attack.feed(fmodel, pool[:3])
        attack.feed(fmodel, pool[3:])
    minimization = isinstance(attack, fb.attacks.base.MinimizationAttack)

    def run(owner: Any, x: Any, y: Any, t: Any) -> Any:
        with torch.enable_grad():
            if "targeted" in options:
                criterion: Any = fb.criteria.TargetedMisclassification(t)
            elif "criterion" in options:
                criterion = fb.criteria.Misclassification(y)
            elif "and" in options:
                criterion = fb.criteria.Misclassification(y) & fb.criteria.TargetedMisclassification(t)
            else:
                criterion = y
            if "run" in options:
                if minimization:
                    return attack.run(fmodel, x, criterion, early_stop=epsilons, **call)
                return attack.run(fmodel, x, criterion, epsilon=epsilons, **call)
            if cls == "SpatialAttack":
                return attack(fmodel, x, criterion)
            return attack(fmodel, x, criterion, epsilons=epsilons, **call)

    return Run(classifier, run, [attack]), (images, labels, targets), {}


def _function(name: str) -> Built:
    import torch

    import foolbox as fb
    from gt_calls import Run

    classifier = _classifier().eval()
    options = ("preprocessing",) if name == "PyTorchModel.preprocessing" else ()
    fmodel = _fmodel(classifier, options)
    images, labels = _inputs(fmodel, options)
    gen = torch.Generator().manual_seed(2)
    perturbed = (images + 0.1 * torch.randn(images.shape, generator=gen)).clamp(0, 1)
    targets = (labels + 1) % CLASSES
    if name == "accuracy":
        return Run(classifier, lambda owner, x, y: fb.accuracy(fmodel, x, y), [fb.accuracy]), (images, labels), {}
    if name.startswith("PyTorchModel"):
        if name.endswith("wrapper"):
            fmodel = fmodel.transform_bounds((0, 255), wrapper=True)
            images = images * 255
        return Run(classifier, lambda owner, x: fmodel(x), [fmodel]), (images,), {}
    if name == "distances":
        def distances(owner: Any, x: Any, p: Any) -> Any:
            return [d(x, p) for d in (fb.distances.l0, fb.distances.l1, fb.distances.l2, fb.distances.linf)]

        return Run(classifier, distances, [fb.distances.LpDistance]), (images, perturbed), {}

    def criterion(owner: Any, x: Any, y: Any, t: Any) -> Any:
        logits = fmodel(x)
        if name.endswith("TargetedMisclassification"):
            return fb.criteria.TargetedMisclassification(t)(x, logits)
        if name.endswith("and"):
            return (fb.criteria.Misclassification(y) & fb.criteria.TargetedMisclassification(t))(x, logits)
        return fb.criteria.Misclassification(y)(x, logits)

    return Run(classifier, criterion, [fb.criteria.Criterion]), (perturbed, labels, targets), {}


def _train(name: str) -> Built:
    import torch
    import torch.nn.functional as F

    import foolbox as fb
    from gt_calls import Run

    classifier = _classifier()
    fmodel = fb.PyTorchModel(classifier, bounds=(0, 1), device="cpu")
    attack = fb.attacks.FGSM() if name.endswith("FGSM") else fb.attacks.LinfPGD(steps=2)
    optimizer = torch.optim.SGD(classifier.parameters(), lr=0.01, momentum=0.9)

    def step(owner: Any, x: Any, y: Any) -> Any:
        with torch.enable_grad():
            training = owner.training
            owner.eval()
            _, adversarial, _ = attack(fmodel, x, y, epsilons=EPS)
            owner.train(training)
            loss = F.cross_entropy(owner(adversarial.detach()), y)
            if training:
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
        return loss.detach()

    images, labels = _inputs(fmodel, ())
    return Run(classifier, step, [attack]), (images, labels), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in ATTACKS:
        return _attack(name)
    if name in FUNCTIONS:
        return _function(name)
    if name in TRAIN:
        return _train(name)
    raise KeyError(name)
