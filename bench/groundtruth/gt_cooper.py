"""Ground-truth bench, cooper (cooper-optim): Lagrangian-based constrained optimization in PyTorch.

Cooper states a constrained problem as a ``ConstrainedMinimizationProblem`` (CMP) whose
``compute_cmp_state`` returns the loss and one ``ConstraintState`` per ``Constraint`` (equality or
inequality), each constraint carrying a formulation (``Lagrangian``, ``AugmentedLagrangian``,
``QuadraticPenalty``), a multiplier (``DenseMultiplier``, ``IndexedMultiplier``, an ``ImplicitMultiplier``)
and a penalty coefficient (``DensePenaltyCoefficient``, ``IndexedPenaltyCoefficient``). A constrained
optimizer (``SimultaneousOptimizer``, ``AlternatingPrimalDualOptimizer``, ``AlternatingDualPrimalOptimizer``,
``ExtrapolationConstrainedOptimizer``, or ``UnconstrainedOptimizer`` for penalty-only problems) wraps
``torch.optim`` optimizers and runs one primal-dual step in ``roll()``. The bench's problem is a tiny
linear classifier (6 features, 3 classes, batch 4) with these constraints (``KINDS``):

- ``rate``: an inequality on the mean predicted probability of each class (3 constraints, dense);
- ``norm``: an equality on the squared norm of the weights (1 constraint, dense);
- ``sample``: an inequality on each sample's loss, indexed by the sample's id among 8
  (``IndexedMultiplier`` / ``IndexedPenaltyCoefficient``, sparse multiplier gradients);
- ``implicit``: an inequality on each sample's margin whose multiplier is a small network of the
  sample's features (an ``ImplicitMultiplier`` written by the user, as cooper's docs do);
- ``strict``: the ``rate`` constraint with a non-differentiable strict violation (from arg-max
  predictions), and ``nodual``: the ``norm`` constraint that does not contribute to the dual update.

The model families (each a bench module; a roll runs under ``enable_grad`` in both modes):

- ``LAGRANGIAN``: ``compute_cmp_state`` then ``CMPState.compute_primal_lagrangian`` and
  ``compute_dual_lagrangian`` for each formulation over the constraint kinds, and the state's named
  violation iterators;
- ``ROLL``: one ``roll()`` of each constrained optimizer (and of ``UnconstrainedOptimizer`` for the
  quadratic penalty) over SGD, Adam, ``ExtraSGD`` / ``ExtraAdam`` and ``nuPI`` duals, with the
  alternating optimizer's ``compute_violations`` path, a penalty-coefficient update after the roll, and
  the extrapolation optimizer's two passes;
- ``CONTRIBUTION``: ``Constraint.compute_contribution_to_lagrangian`` (primal and dual) per formulation
  and constraint type;
- ``UPDATERS``: ``MultiplicativePenaltyCoefficientUpdater`` / ``AdditivePenaltyCoefficientUpdater``
  ``step`` on dense and indexed penalty coefficients, with and without restarts;
- ``MULTIPLIERS``: the multipliers' forward and ``post_step_``, the penalty coefficients' call;
- ``UTILS``: ``cooper.formulations.utils`` (constraint factors, weighted violations, quadratic penalty,
  augmented contributions);
- ``TORCH_OPTIMIZERS``: ``ExtraSGD`` / ``ExtraAdam`` (extrapolation then step) and ``nuPI`` steps in
  their options (momentum, Nesterov, weight decay, AMSGrad, zero and SGD initialisation, ``Kp``,
  ``ema_nu``, sparse gradients), as ``gt_calls.OptimizerStep``-like modules.

Random weights, nothing downloaded. ``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
DIM, CLASSES, BATCH, SAMPLES, FEATURES = 6, 3, 4, 8, 5

# ``compute_cmp_state`` + Lagrangians name -> (formulation, constraint kinds).
LAGRANGIAN: dict[str, tuple[str, tuple[str, ...]]] = {
    "lagrangian.Lagrangian.rate": ("Lagrangian", ("rate",)),
    "lagrangian.Lagrangian.norm": ("Lagrangian", ("norm",)),
    "lagrangian.Lagrangian.rate_norm": ("Lagrangian", ("rate", "norm")),
    "lagrangian.Lagrangian.sample": ("Lagrangian", ("sample",)),
    "lagrangian.Lagrangian.implicit": ("Lagrangian", ("implicit",)),
    "lagrangian.Lagrangian.strict": ("Lagrangian", ("strict",)),
    "lagrangian.Lagrangian.nodual": ("Lagrangian", ("nodual", "rate")),
    "lagrangian.AugmentedLagrangian.rate_norm": ("AugmentedLagrangian", ("rate", "norm")),
    "lagrangian.AugmentedLagrangian.sample": ("AugmentedLagrangian", ("sample",)),
    "lagrangian.AugmentedLagrangian.implicit": ("AugmentedLagrangian", ("implicit",)),
    "lagrangian.AugmentedLagrangian.strict": ("AugmentedLagrangian", ("strict",)),
    "lagrangian.QuadraticPenalty.rate_norm": ("QuadraticPenalty", ("rate", "norm")),
    "lagrangian.QuadraticPenalty.sample": ("QuadraticPenalty", ("sample",)),
    "lagrangian.no_constraints": ("Lagrangian", ()),
    "cmp_state.named_violations": ("Lagrangian", ("strict", "sample")),
}
# ``roll()`` name -> (cooper optimizer, formulation, constraint kinds, primal optimizer, dual optimizer,
# extra: "" / "violations" (the CMP implements ``compute_violations``) / "multiplicative" / "additive"
# (a penalty-coefficient update after the roll)).
ROLL: dict[str, tuple[str, str, tuple[str, ...], str, str, str]] = {
    "roll.Simultaneous.Lagrangian.rate_norm": ("Simultaneous", "Lagrangian", ("rate", "norm"), "sgd", "sgd", ""),
    "roll.Simultaneous.Lagrangian.adam": ("Simultaneous", "Lagrangian", ("rate",), "adam", "sgd", ""),
    "roll.Simultaneous.Lagrangian.sample": ("Simultaneous", "Lagrangian", ("sample",), "sgd", "sgd", ""),
    "roll.Simultaneous.Lagrangian.implicit": ("Simultaneous", "Lagrangian", ("implicit",), "sgd", "adam", ""),
    "roll.Simultaneous.Lagrangian.strict": ("Simultaneous", "Lagrangian", ("strict", "nodual"), "sgd", "sgd", ""),
    "roll.Simultaneous.Lagrangian.nupi": ("Simultaneous", "Lagrangian", ("rate", "norm"), "sgd", "nupi", ""),
    "roll.Simultaneous.Lagrangian.nupi.sample": ("Simultaneous", "Lagrangian", ("sample",), "sgd", "nupi", ""),
    "roll.Simultaneous.AugmentedLagrangian": ("Simultaneous", "AugmentedLagrangian", ("rate", "norm"), "sgd", "sgd",
                                              ""),
    "roll.Simultaneous.AugmentedLagrangian.multiplicative": ("Simultaneous", "AugmentedLagrangian", ("rate", "norm"),
                                                             "sgd", "sgd", "multiplicative"),
    "roll.Simultaneous.AugmentedLagrangian.sample.additive": ("Simultaneous", "AugmentedLagrangian", ("sample",),
                                                              "sgd", "sgd", "additive"),
    "roll.AlternatingPrimalDual.Lagrangian": ("AlternatingPrimalDual", "Lagrangian", ("rate", "norm"), "sgd", "sgd",
                                              ""),
    "roll.AlternatingPrimalDual.Lagrangian.violations": ("AlternatingPrimalDual", "Lagrangian", ("rate", "norm"),
                                                         "sgd", "sgd", "violations"),
    "roll.AlternatingPrimalDual.AugmentedLagrangian": ("AlternatingPrimalDual", "AugmentedLagrangian",
                                                       ("rate", "sample"), "adam", "sgd", ""),
    "roll.AlternatingPrimalDual.AugmentedLagrangian.violations": ("AlternatingPrimalDual", "AugmentedLagrangian",
                                                                  ("rate",), "sgd", "sgd", "violations"),
    "roll.AlternatingDualPrimal.Lagrangian": ("AlternatingDualPrimal", "Lagrangian", ("rate", "norm"), "sgd", "sgd",
                                              ""),
    "roll.AlternatingDualPrimal.AugmentedLagrangian": ("AlternatingDualPrimal", "AugmentedLagrangian",
                                                       ("rate", "norm"), "sgd", "sgd", "multiplicative"),
    "roll.Extrapolation.Lagrangian.extrasgd": ("Extrapolation", "Lagrangian", ("rate", "norm"), "extrasgd",
                                               "extrasgd", ""),
    "roll.Extrapolation.Lagrangian.extraadam": ("Extrapolation", "Lagrangian", ("rate",), "extraadam", "extrasgd",
                                                ""),
    "roll.Extrapolation.AugmentedLagrangian": ("Extrapolation", "AugmentedLagrangian", ("norm",), "extrasgd",
                                               "extraadam", ""),
    "roll.Unconstrained.QuadraticPenalty": ("Unconstrained", "QuadraticPenalty", ("rate", "norm"), "sgd", "", ""),
    "roll.Unconstrained.QuadraticPenalty.multiplicative": ("Unconstrained", "QuadraticPenalty", ("rate", "norm"),
                                                           "adam", "", "multiplicative"),
    "roll.Unconstrained.no_constraints": ("Unconstrained", "Lagrangian", (), "sgd", "", ""),
}
# ``Constraint.compute_contribution_to_lagrangian`` name -> (formulation, kind, "primal" or "dual").
CONTRIBUTION: dict[str, tuple[str, str, str]] = {
    "contribution.Lagrangian.inequality.primal": ("Lagrangian", "rate", "primal"),
    "contribution.Lagrangian.equality.dual": ("Lagrangian", "norm", "dual"),
    "contribution.AugmentedLagrangian.inequality.primal": ("AugmentedLagrangian", "rate", "primal"),
    "contribution.AugmentedLagrangian.equality.primal": ("AugmentedLagrangian", "norm", "primal"),
    "contribution.AugmentedLagrangian.indexed.dual": ("AugmentedLagrangian", "sample", "dual"),
    "contribution.QuadraticPenalty.inequality.primal": ("QuadraticPenalty", "rate", "primal"),
    "contribution.QuadraticPenalty.equality.primal": ("QuadraticPenalty", "norm", "primal"),
    "contribution.QuadraticPenalty.dual": ("QuadraticPenalty", "rate", "dual"),
}
# Penalty updater name -> (updater, keywords, formulation, constraint kinds).
UPDATERS: dict[str, tuple[str, dict[str, Any], str, tuple[str, ...]]] = {
    "MultiplicativePenaltyCoefficientUpdater.dense": ("Multiplicative", {"growth_factor": 1.5}, "AugmentedLagrangian",
                                                      ("rate", "norm")),
    "MultiplicativePenaltyCoefficientUpdater.indexed": ("Multiplicative", {"has_restart": False}, "AugmentedLagrangian",
                                                        ("sample",)),
    "MultiplicativePenaltyCoefficientUpdater.no_restart": ("Multiplicative", {"has_restart": False},
                                                           "QuadraticPenalty", ("rate",)),
    "MultiplicativePenaltyCoefficientUpdater.strict": ("Multiplicative", {}, "AugmentedLagrangian", ("strict",)),
    "AdditivePenaltyCoefficientUpdater.dense": ("Additive", {"increment": 0.5}, "QuadraticPenalty", ("rate", "norm")),
    "AdditivePenaltyCoefficientUpdater.indexed": ("Additive", {"has_restart": False}, "QuadraticPenalty",
                                                  ("sample",)),
}
MULTIPLIERS = ("DenseMultiplier", "DenseMultiplier.post_step_", "IndexedMultiplier", "IndexedMultiplier.post_step_",
               "ImplicitMultiplier", "DensePenaltyCoefficient", "IndexedPenaltyCoefficient",
               "IndexedPenaltyCoefficient.scalar")
UTILS = ("evaluate_constraint_factor.dense", "evaluate_constraint_factor.indexed",
         "evaluate_constraint_factor.scalar_expand", "compute_primal_weighted_violation",
         "compute_dual_weighted_violation", "compute_quadratic_penalty.inequality",
         "compute_quadratic_penalty.equality", "compute_primal_quadratic_augmented_contribution.inequality",
         "compute_primal_quadratic_augmented_contribution.equality")
# Torch optimizer name -> (class, keywords, sparse gradients).
TORCH_OPTIMIZERS: dict[str, tuple[str, dict[str, Any], bool]] = {
    "ExtraSGD": ("ExtraSGD", {"lr": 0.1}, False),
    "ExtraSGD.momentum.nesterov": ("ExtraSGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True}, False),
    "ExtraSGD.momentum.dampening.weight_decay": ("ExtraSGD", {"lr": 0.1, "momentum": 0.9, "dampening": 0.1,
                                                              "weight_decay": 0.01, "maximize": True}, False),
    "ExtraAdam": ("ExtraAdam", {"lr": 0.01}, False),
    "ExtraAdam.amsgrad.weight_decay": ("ExtraAdam", {"lr": 0.01, "amsgrad": True, "weight_decay": 0.01,
                                                     "maximize": True}, False),
    "nuPI.sgd_init": ("nuPI", {"lr": 0.1}, False),
    "nuPI.zeros_init.Kp.ema": ("nuPI", {"lr": 0.1, "Kp": 0.5, "ema_nu": 0.9, "init_type": "ZEROS"}, False),
    "nuPI.weight_decay.maximize": ("nuPI", {"lr": 0.1, "Kp": 0.2, "weight_decay": 0.01, "maximize": True}, False),
    "nuPI.sparse.sgd_init": ("nuPI", {"lr": 0.1, "Kp": 0.5}, True),
    "nuPI.sparse.zeros_init": ("nuPI", {"lr": 0.1, "Kp": 0.5, "ema_nu": 0.5, "init_type": "ZEROS"}, True),
}


def names() -> list[str]:
    return (list(LAGRANGIAN) + list(ROLL) + list(CONTRIBUTION) + list(UPDATERS) + list(MULTIPLIERS) + list(UTILS)
            + list(TORCH_OPTIMIZERS))


def _generator(seed: int) -> Any:
    import torch

    return torch.Generator().manual_seed(seed)


def _inputs() -> tuple[Any, ...]:
    """A batch: features, labels, sample ids (indices of the ``sample`` constraints), implicit features."""
    import torch

    gen = _generator(1)
    return (torch.randn(BATCH, DIM, generator=gen), torch.randint(0, CLASSES, (BATCH,), generator=gen),
            torch.tensor([0, 3, 5, 6]), torch.randn(BATCH, FEATURES, generator=gen))


def _implicit_multiplier() -> Any:
    import torch
    from cooper.multipliers import ImplicitMultiplier

    class FeatureMultiplier(ImplicitMultiplier):
        """A user's implicit multiplier: a non-negative linear function of each constraint's features."""

        expects_constraint_features = True

        def __init__(self) -> None:
            super().__init__()
            self.linear = torch.nn.Linear(FEATURES, 1)

        def forward(self, features: Any) -> Any:  # type: ignore[override]
            return torch.relu(self.linear(features)).squeeze(-1)

        def post_step_(self) -> None:
            return None

    return FeatureMultiplier()


def _constraint(kind: str, formulation: str) -> Any:
    """One constraint of ``kind`` under ``formulation``, with the multiplier and penalty it expects."""
    import torch
    from cooper import Constraint, ConstraintType, formulations, multipliers, penalty_coefficients as pc

    equality = kind in ("norm", "nodual")
    size = {"rate": CLASSES, "strict": CLASSES, "norm": 1, "nodual": 1, "sample": SAMPLES, "implicit": BATCH}[kind]
    formulation_type = getattr(formulations, formulation)
    multiplier, penalty = None, None
    if formulation_type.expects_multiplier:
        if kind == "implicit":
            multiplier = _implicit_multiplier()
        elif kind == "sample":
            multiplier = multipliers.IndexedMultiplier(num_constraints=SAMPLES)
        else:
            multiplier = multipliers.DenseMultiplier(init=torch.full((size,), 0.1))
    if formulation_type.expects_penalty_coefficient:
        if kind == "sample":
            penalty = pc.IndexedPenaltyCoefficient(torch.ones(SAMPLES))
        elif kind == "implicit":
            penalty = pc.DensePenaltyCoefficient(torch.tensor(2.0))
        else:
            penalty = pc.DensePenaltyCoefficient(torch.ones(size))
    return Constraint(ConstraintType.EQUALITY if equality else ConstraintType.INEQUALITY, formulation_type,
                      multiplier=multiplier, penalty_coefficient=penalty)


def _problem(formulation: str, kinds: tuple[str, ...], violations: bool = False) -> Any:
    """The user's CMP: a cross-entropy loss and the constraints ``kinds`` on a linear classifier."""
    import torch
    import torch.nn.functional as F
    from cooper import CMPState, ConstrainedMinimizationProblem, ConstraintState

    def states(problem: Any, net: Any, x: Any, y: Any, ids: Any, feats: Any, logits: Any) -> dict[Any, Any]:
        observed = {}
        for name, constraint in problem.named_constraints():
            if name in ("rate", "strict"):
                violation = logits.softmax(-1).mean(0) - 0.6
                strict = None
                if name == "strict":
                    strict = F.one_hot(logits.argmax(-1), CLASSES).float().mean(0) - 0.6
                observed[constraint] = ConstraintState(violation=violation, strict_violation=strict)
            elif name in ("norm", "nodual"):
                observed[constraint] = ConstraintState(violation=net.weight.pow(2).sum() - 1.0,
                                                       contributes_to_dual_update=name == "norm")
            elif name == "sample":
                observed[constraint] = ConstraintState(violation=F.cross_entropy(logits, y, reduction="none") - 1.0,
                                                       constraint_features=ids)
            else:
                margin = logits.gather(1, y[:, None]).squeeze(1) - logits.logsumexp(-1)
                observed[constraint] = ConstraintState(violation=-margin - 1.0, constraint_features=feats)
        return observed

    class Problem(ConstrainedMinimizationProblem):
        def __init__(self) -> None:
            super().__init__()
            for kind in kinds:
                setattr(self, kind, _constraint(kind, formulation))

        def compute_cmp_state(self, net: Any, x: Any, y: Any, ids: Any, feats: Any) -> Any:  # type: ignore[override]
            logits = net(x)
            loss = F.cross_entropy(logits, y)
            return CMPState(loss=loss, observed_constraints=states(self, net, x, y, ids, feats, logits),
                            misc={"logits": logits})

    class ProblemWithViolations(Problem):
        def compute_violations(self, net: Any, x: Any, y: Any, ids: Any, feats: Any) -> Any:  # type: ignore[override]
            return CMPState(observed_constraints=states(self, net, x, y, ids, feats, net(x)))

    torch.manual_seed(0)
    return ProblemWithViolations() if violations else Problem()


def _net() -> Any:
    import torch

    torch.manual_seed(0)
    return torch.nn.Linear(DIM, CLASSES)


class _Holder:
    """What a bench module keeps beside the network: the CMP and the optimizers (not modules)."""

    def __init__(self, **items: Any) -> None:
        self.__dict__.update(items)


def _wrap(owner: Any, run: Any, entries: list[Any]) -> Any:
    from gt_calls import Run

    return Run(owner, run, entries)


def _modules(net: Any, problem: Any) -> Any:
    """The network and the CMP's multipliers in one module, so that ``train`` / ``eval`` reach them all."""
    import torch

    return torch.nn.ModuleDict({"net": net, "multipliers": torch.nn.ModuleList(problem.multipliers())})


def _lagrangian(name: str) -> Built:
    from cooper import CMPState

    formulation, kinds = LAGRANGIAN[name]
    net, problem = _net(), _problem(formulation, kinds)

    def lagrangians(owner: Any, *inputs: Any) -> Any:
        state = problem.compute_cmp_state(owner["net"], *inputs)
        primal = state.compute_primal_lagrangian()
        dual = state.compute_dual_lagrangian()
        return primal.lagrangian, dual.lagrangian, list(primal.observed_multiplier_values()), \
            list(primal.observed_penalty_coefficient_values())

    def named(owner: Any, *inputs: Any) -> Any:
        state = problem.compute_cmp_state(owner["net"], *inputs)
        return (dict(state.named_observed_violations()), dict(state.named_observed_strict_violations()),
                dict(state.named_observed_constraint_features()),
                dict(state.named_observed_strict_constraint_features()))

    if name == "cmp_state.named_violations":
        entries = [CMPState.named_observed_violations, CMPState.named_observed_strict_violations,
                   CMPState.named_observed_constraint_features, CMPState.named_observed_strict_constraint_features]
        return _wrap(_modules(net, problem), named, entries), _inputs(), {}
    return _wrap(_modules(net, problem), lagrangians,
                 [CMPState.compute_primal_lagrangian, CMPState.compute_dual_lagrangian]), _inputs(), {}


def _torch_optimizer(kind: str, params: Any, lr: float, maximize: bool) -> Any:
    import torch
    from cooper import optim

    params = list(params)
    if kind == "sgd":
        return torch.optim.SGD(params, lr=lr, maximize=maximize)
    if kind == "adam":
        return torch.optim.Adam(params, lr=lr, maximize=maximize)
    if kind == "nupi":
        return optim.nuPI(params, lr=lr, Kp=0.5, maximize=maximize)
    if kind == "extrasgd":
        return optim.ExtraSGD(params, lr=lr, momentum=0.5, maximize=maximize)
    return optim.ExtraAdam(params, lr=lr, maximize=maximize)


def _roll(name: str) -> Built:
    import torch
    from cooper import optim, penalty_coefficients as pc

    kind, formulation, kinds, primal_kind, dual_kind, extra = ROLL[name]
    net, problem = _net(), _problem(formulation, kinds, violations=extra == "violations")
    primal = _torch_optimizer(primal_kind, net.parameters(), 0.05, False)
    if kind == "Unconstrained":
        cooper_optimizer = optim.UnconstrainedOptimizer(problem, primal)
    else:
        dual = _torch_optimizer(dual_kind, problem.dual_parameters(), 0.05, True)
        cooper_optimizer = getattr(optim, {"Simultaneous": "SimultaneousOptimizer",
                                           "AlternatingPrimalDual": "AlternatingPrimalDualOptimizer",
                                           "AlternatingDualPrimal": "AlternatingDualPrimalOptimizer",
                                           "Extrapolation": "ExtrapolationConstrainedOptimizer"}[kind])(
            problem, primal, dual)
    updater = None
    if extra == "multiplicative":
        updater = pc.MultiplicativePenaltyCoefficientUpdater(growth_factor=1.1, violation_tolerance=1e-3)
    elif extra == "additive":
        updater = pc.AdditivePenaltyCoefficientUpdater(increment=0.5, violation_tolerance=1e-3, has_restart=False)
    state = _Holder(optimizer=cooper_optimizer, updater=updater)

    def roll(owner: Any, x: Any, y: Any, ids: Any, feats: Any) -> Any:
        """One training iteration as cooper's tutorials write it."""
        arguments = {"net": owner["net"], "x": x, "y": y, "ids": ids, "feats": feats}
        with torch.enable_grad():
            if extra == "violations":
                out = state.optimizer.roll(compute_cmp_state_kwargs=arguments, compute_violations_kwargs=arguments)
            else:
                out = state.optimizer.roll(compute_cmp_state_kwargs=arguments)
            if state.updater is not None:
                state.updater.step(out.cmp_state.observed_constraints)
        return out.loss, out.primal_lagrangian_store.lagrangian

    entries = [type(cooper_optimizer).roll] + ([type(updater).step] if updater is not None else [])
    return _wrap(_modules(net, problem), roll, entries), _inputs(), {}


def _contribution(name: str) -> Built:
    from cooper import Constraint

    formulation, kind, side = CONTRIBUTION[name]
    net, problem = _net(), _problem(formulation, (kind,))
    constraint = next(problem.constraints())

    def contribution(owner: Any, *inputs: Any) -> Any:
        state = problem.compute_cmp_state(owner["net"], *inputs)
        store = constraint.compute_contribution_to_lagrangian(state.observed_constraints[constraint], side)
        return None if store is None else tuple(store)

    return _wrap(_modules(net, problem), contribution, [Constraint.compute_contribution_to_lagrangian]), _inputs(), {}


def _updater(name: str) -> Built:
    from cooper import penalty_coefficients as pc

    kind, keywords, formulation, kinds = UPDATERS[name]
    net, problem = _net(), _problem(formulation, kinds)
    updater = getattr(pc, f"{kind}PenaltyCoefficientUpdater")(**keywords)

    def update(owner: Any, *inputs: Any) -> Any:
        state = problem.compute_cmp_state(owner["net"], *inputs)
        updater.step(state.observed_constraints)
        return [c.value for c in problem.penalty_coefficients()]

    return _wrap(_modules(net, problem), update, [type(updater).step]), _inputs(), {}


def _multiplier(name: str) -> Built:
    import torch
    from cooper import ConstraintType, multipliers, penalty_coefficients as pc

    from gt_calls import Call, Method

    gen = _generator(2)
    ids = torch.tensor([1, 4, 7])
    if name.startswith("DenseMultiplier"):
        multiplier = multipliers.DenseMultiplier(init=torch.randn(CLASSES, generator=gen))
        multiplier.constraint_type = ConstraintType.INEQUALITY
        if name.endswith("post_step_"):
            return Method(multiplier, "post_step_"), (), {}
        return multiplier, (), {}
    if name.startswith("IndexedMultiplier"):
        multiplier = multipliers.IndexedMultiplier(init=torch.randn(SAMPLES, generator=gen))
        multiplier.set_constraint_type(ConstraintType.EQUALITY)
        if name.endswith("post_step_"):
            multiplier.constraint_type = ConstraintType.INEQUALITY
            return Method(multiplier, "post_step_"), (), {}
        return multiplier, (ids,), {}
    if name == "ImplicitMultiplier":
        return _implicit_multiplier(), (torch.randn(BATCH, FEATURES, generator=gen),), {}
    if name == "DensePenaltyCoefficient":
        coefficient = pc.DensePenaltyCoefficient(torch.rand(CLASSES, generator=gen))
        return _wrap(torch.nn.Identity(), lambda owner: coefficient(), [pc.DensePenaltyCoefficient.__call__]), (), {}
    value = torch.tensor(3.0) if name.endswith("scalar") else torch.rand(SAMPLES, generator=gen)
    coefficient = pc.IndexedPenaltyCoefficient(value)
    return Call(coefficient), (ids,), {}


def _utils(name: str) -> Built:
    import torch
    from cooper import ConstraintType, multipliers, penalty_coefficients as pc
    from cooper.formulations import utils

    from gt_calls import Call

    gen = _generator(3)
    violation = torch.randn(CLASSES, generator=gen)
    factor = torch.rand(CLASSES, generator=gen)
    function, _, variant = name.partition(".")
    if function == "evaluate_constraint_factor":
        if variant == "dense":
            module, features, shape = multipliers.DenseMultiplier(init=factor), None, violation.shape
        elif variant == "indexed":
            module, features, shape = multipliers.IndexedMultiplier(num_constraints=SAMPLES), torch.tensor([2, 5]), (2,)
        else:
            module, features, shape = pc.DensePenaltyCoefficient(torch.tensor(2.0)), None, violation.shape
        return _wrap(torch.nn.ModuleList([module] if isinstance(module, torch.nn.Module) else []),
                     lambda owner, f: utils.evaluate_constraint_factor(module, f, shape),
                     [utils.evaluate_constraint_factor]), (features,), {}
    constraint_type = ConstraintType.EQUALITY if variant == "equality" else ConstraintType.INEQUALITY
    if function in ("compute_primal_weighted_violation", "compute_dual_weighted_violation"):
        return Call(getattr(utils, function)), (factor, violation), {}
    if function == "compute_quadratic_penalty":
        return Call(utils.compute_quadratic_penalty, constraint_type=constraint_type), (factor, violation), {}
    return Call(utils.compute_primal_quadratic_augmented_contribution, constraint_type=constraint_type), \
        (factor * 0.5, factor + 1.0, violation), {}


def _torch_step(name: str) -> Built:
    import torch
    from cooper import optim

    cls, keywords, sparse = TORCH_OPTIMIZERS[name]
    keywords = dict(keywords)
    if "init_type" in keywords:
        keywords["init_type"] = getattr(optim.nuPIInitType, keywords["init_type"])
    torch.manual_seed(0)
    if sparse:
        net: Any = torch.nn.Embedding(SAMPLES, 3, sparse=True)
    else:
        net = torch.nn.Sequential(torch.nn.Linear(DIM, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1))
    optimizer = getattr(optim, cls)(net.parameters(), **keywords)
    gen = _generator(4)
    inputs = torch.tensor([1, 2, 6]) if sparse else torch.randn(BATCH, DIM, generator=gen)

    def step(owner: Any, x: Any) -> Any:
        """Gradients of a small loss, then the optimizer's step (extrapolation and update for the extragradient
        optimizers)."""
        with torch.enable_grad():
            optimizer.zero_grad()
            owner(x).pow(2).mean().backward()
            if hasattr(optimizer, "extrapolation"):
                optimizer.extrapolation()
                optimizer.zero_grad()
                owner(x).pow(2).mean().backward()
            return optimizer.step()

    entries = [type(optimizer).step] + ([type(optimizer).extrapolation] if hasattr(optimizer, "extrapolation") else [])
    return _wrap(net, step, entries), (inputs,), {}


def build(name: str) -> Built:
    import torch

    torch.manual_seed(0)
    if name in LAGRANGIAN:
        return _lagrangian(name)
    if name in ROLL:
        return _roll(name)
    if name in CONTRIBUTION:
        return _contribution(name)
    if name in UPDATERS:
        return _updater(name)
    if name in MULTIPLIERS:
        return _multiplier(name)
    if name in UTILS:
        return _utils(name)
    return _torch_step(name)
