"""Ground-truth bench, botorch: its surrogate models' posteriors and training losses, and its acquisition
functions evaluated on candidate sets, as a Bayesian-optimisation loop compiles them (botorch 0.18.1).

A botorch loop fits a model to the data (``fit_gpytorch_mll`` minimises the loss closure of a marginal
log likelihood), builds an acquisition function on it, and ``optimize_acqf`` evaluates that function
(and its gradient) on batches of candidates many times. So:

- ``POSTERIORS``: ``model.posterior(X)``'s mean and variance for each model family (``SingleTaskGP``
  with its default outcome transform, and with ``Normalize`` inputs; ``MultiTaskGP``,
  ``KroneckerMultiTaskGP``, ``ModelListGP``, ``MixedSingleTaskGP``, ``SingleTaskVariationalGP``,
  ``PairwiseGP``), the model left in eval mode as botorch puts it;
- ``LOSSES``: the loss closure ``fit_gpytorch_mll`` minimises (``get_loss_closure(mll)``: the model on
  its training inputs and the negated marginal log likelihood), with the model in train mode, for the
  exact, summed (model list), variational and Laplace (pairwise) likelihoods;
- ``ACQUISITIONS``: analytic (EI, LogEI, PI, UCB, constrained LogEI), Monte-Carlo (qEI, qLogEI, qNEI,
  qLogNEI, qUCB, qKnowledgeGradient, qMaxValueEntropy) and multi-objective (EHVI on a model list,
  qLogNEHVI) acquisition functions, each called on a ``3 x q x d``
  batch of candidates (``q`` is 1 for analytic ones, 2 otherwise; qKG's candidates carry its
  fantasy points), with the model in eval mode (gradients follow the harness's mode, as
  ``optimize_acqf`` differentiates them).

Data: 8 random points in the unit square (``float64``, as botorch recommends) with a smooth objective
(and a second one for two outputs); models keep their initial hyperparameters (no fitting: the code
paths are the same), Monte-Carlo samplers draw 16 quasi-random samples. Nothing is downloaded. Each
model costs about 30 s of CPU to compile (most of it in GPyTorch and linear_operator, with recompiles),
so variants that reuse these code paths with other options (known noise, observation noise,
multi-fidelity kernels, PosteriorMean, qPI, qSimpleRegret, qEHVI, qNIPV, scalarised objectives) are
left out. ``names()`` needs no torch; ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
POINTS, DIMS, SAMPLES = 8, 2, 16

# Models whose posterior is compiled; ``_model`` builds them (and ``SingleTaskGP.two_outputs``).
POSTERIORS = ("SingleTaskGP", "SingleTaskGP.normalize", "MultiTaskGP", "KroneckerMultiTaskGP", "ModelListGP",
              "MixedSingleTaskGP", "SingleTaskVariationalGP", "PairwiseGP")
# Loss name -> (model of ``_model``, marginal log likelihood of ``gpytorch.mlls`` or botorch).
LOSSES: dict[str, tuple[str, str]] = {
    "ExactMarginalLogLikelihood": ("SingleTaskGP", "ExactMarginalLogLikelihood"),
    "SumMarginalLogLikelihood": ("ModelListGP", "SumMarginalLogLikelihood"),
    "VariationalELBO": ("SingleTaskVariationalGP", "VariationalELBO"),
    "PairwiseLaplaceMarginalLogLikelihood": ("PairwiseGP", "PairwiseLaplaceMarginalLogLikelihood"),
}
# Acquisition name (variant after a dot) -> (model of ``_model``, q, keywords). Keyword values that are
# strings starting with ``$`` are filled by ``_acquisition``: ``$best_f`` the best observed value, ``$X`` the
# observed points, ``$sampler`` a quasi-Monte-Carlo sampler, ``$candidates`` a set of random points,
# ``$ref_point`` a reference point for two objectives and ``$partitioning`` the non-dominated
# partitioning of the observed outcomes above it.
ACQUISITIONS: dict[str, tuple[str, int, dict[str, Any]]] = {
    "ExpectedImprovement": ("SingleTaskGP", 1, {"best_f": "$best_f"}),
    "LogExpectedImprovement": ("SingleTaskGP", 1, {"best_f": "$best_f"}),
    "ProbabilityOfImprovement": ("SingleTaskGP", 1, {"best_f": "$best_f"}),
    "UpperConfidenceBound": ("SingleTaskGP", 1, {"beta": 0.2}),
    "LogConstrainedExpectedImprovement": ("SingleTaskGP.two_outputs", 1, {"best_f": "$best_f", "objective_index": 0,
                                                                           "constraints": {1: (None, 0.0)}}),
    "qExpectedImprovement": ("SingleTaskGP", 2, {"best_f": "$best_f", "sampler": "$sampler"}),
    "qLogExpectedImprovement": ("SingleTaskGP", 2, {"best_f": "$best_f", "sampler": "$sampler"}),
    "qNoisyExpectedImprovement": ("SingleTaskGP", 2, {"X_baseline": "$X", "sampler": "$sampler"}),
    "qLogNoisyExpectedImprovement": ("SingleTaskGP", 2, {"X_baseline": "$X", "sampler": "$sampler"}),
    "qUpperConfidenceBound": ("SingleTaskGP", 2, {"beta": 0.2, "sampler": "$sampler"}),
    "qKnowledgeGradient": ("SingleTaskGP", 2, {"num_fantasies": 4}),
    "qMaxValueEntropy": ("SingleTaskGP", 1, {"candidate_set": "$candidates", "num_mv_samples": 4}),
    "ExpectedHypervolumeImprovement": ("ModelListGP", 1, {"ref_point": "$ref_point", "partitioning": "$partitioning"}),
    "qLogNoisyExpectedHypervolumeImprovement": ("SingleTaskGP.two_outputs", 2,
                                                {"ref_point": "$ref_point", "X_baseline": "$X", "sampler": "$sampler"}),
}
# The acquisition classes of ``botorch.acquisition.multi_objective`` (the others: ``botorch.acquisition``).
MULTI_OBJECTIVE = ("ExpectedHypervolumeImprovement", "qLogNoisyExpectedHypervolumeImprovement")


def names() -> list[str]:
    return ([f"posterior.{m}" for m in POSTERIORS] + [f"loss.{m}" for m in LOSSES]
            + [f"acquisition.{a}" for a in ACQUISITIONS])


def _data(outputs: int = 1, dims: int = DIMS) -> tuple[Any, Any]:
    import torch

    gen = torch.Generator().manual_seed(1)
    x = torch.rand(POINTS, dims, generator=gen, dtype=torch.float64)
    f = torch.sin(3 * x.sum(-1, keepdim=True)) + 0.05 * torch.randn(POINTS, 1, generator=gen, dtype=torch.float64)
    y = torch.cat([f, torch.cos(4 * x[:, :1]) - 0.5], -1)[:, :outputs]
    return x, y


def _model(name: str) -> Any:
    """A model of ``POSTERIORS`` on ``_data``, at its initial hyperparameters."""
    import torch
    from botorch.models import (KroneckerMultiTaskGP, MixedSingleTaskGP, ModelListGP, MultiTaskGP, PairwiseGP,
                                SingleTaskGP, SingleTaskVariationalGP)
    from botorch.models.transforms import Normalize, Standardize

    x, y = _data()
    if name == "SingleTaskGP":
        return SingleTaskGP(x, y)
    if name == "SingleTaskGP.two_outputs":
        return SingleTaskGP(*_data(outputs=2))
    if name == "SingleTaskGP.normalize":  # inputs on another scale, as the tutorials normalise them
        return SingleTaskGP(10 * x - 5, y, input_transform=Normalize(d=DIMS), outcome_transform=Standardize(m=1))
    if name == "MultiTaskGP":  # the last column is the task
        tasks = (torch.arange(POINTS) % 2).to(x).unsqueeze(-1)
        return MultiTaskGP(torch.cat([x, tasks], -1), y, task_feature=-1)
    if name == "KroneckerMultiTaskGP":
        return KroneckerMultiTaskGP(*_data(outputs=2))
    if name == "ModelListGP":
        x2, y2 = _data(outputs=2)
        return ModelListGP(SingleTaskGP(x2, y2[:, :1]), SingleTaskGP(x2, y2[:, 1:]))
    if name == "MixedSingleTaskGP":  # the last column is categorical, with three levels
        x3, y3 = _data(dims=DIMS + 1)
        x3[:, -1] = (torch.arange(POINTS) % 3).to(x3)
        return MixedSingleTaskGP(x3, y3, cat_dims=[DIMS])
    if name == "SingleTaskVariationalGP":
        return SingleTaskVariationalGP(x, y, inducing_points=4)
    if name == "PairwiseGP":  # preferences between pairs of points, the better one first
        order = y.squeeze(-1).argsort(descending=True)
        comparisons = torch.stack([order[:-1], order[1:]], -1)
        return PairwiseGP(x, comparisons)
    raise KeyError(name)


def _inputs(model_name: str, q: int, batch: int = 3) -> Any:
    import torch

    dims = DIMS + 1 if model_name in ("MultiTaskGP", "MixedSingleTaskGP") else DIMS
    x = torch.rand(batch, q, dims, generator=torch.Generator().manual_seed(2), dtype=torch.float64)
    if model_name in ("MultiTaskGP", "MixedSingleTaskGP"):
        x[..., -1] = torch.arange(batch * q).reshape(batch, q) % 2
    return x


class _Eval:
    """A mixin for bench modules holding a botorch model that stays in ``mode`` whatever the harness
    asks (gradients still follow the harness's mode)."""

    keep_training = False

    def train(self, mode: bool = True) -> Any:
        super().train(mode)  # type: ignore[misc]
        self.model.train(self.keep_training)  # type: ignore[attr-defined]
        return self


def _posterior(name: str) -> Built:
    import torch
    from torch import nn

    model = _model(name)

    class Posterior(_Eval, nn.Module):
        """``model.posterior(X)``: its mean and variance."""

        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, x: torch.Tensor) -> Any:
            posterior = self.model.posterior(x)
            return posterior.mean, posterior.variance

        def entry_points(self) -> list[Any]:
            return [type(self.model).posterior]

    model.eval()
    return Posterior(), (_inputs(name, 4, batch=1)[0],), {}


def _loss(name: str) -> Built:
    import gpytorch
    from botorch.models.pairwise_gp import PairwiseLaplaceMarginalLogLikelihood
    from botorch.optim.closures import get_loss_closure
    from torch import nn

    model_name, mll_name = LOSSES[name]
    model = _model(model_name)
    if mll_name == "SumMarginalLogLikelihood":
        mll: Any = gpytorch.mlls.SumMarginalLogLikelihood(model.likelihood, model)
    elif mll_name == "PairwiseLaplaceMarginalLogLikelihood":
        mll = PairwiseLaplaceMarginalLogLikelihood(model.likelihood, model)
    elif mll_name == "VariationalELBO":
        mll = gpytorch.mlls.VariationalELBO(model.likelihood, model.model, num_data=POINTS)
    else:
        mll = gpytorch.mlls.ExactMarginalLogLikelihood(model.likelihood, model)
    closure = get_loss_closure(mll)

    class Loss(_Eval, nn.Module):
        """The loss closure ``fit_gpytorch_mll`` minimises, the model in train mode as there."""

        keep_training = True

        def __init__(self) -> None:
            super().__init__()
            self.model = model
            self.mll = mll

        def forward(self) -> Any:
            return closure()

        def entry_points(self) -> list[Any]:
            return [closure, type(mll).forward]

    model.train()
    return Loss(), (), {}


def _acquisition(name: str) -> Built:
    import importlib

    import torch
    from botorch.sampling import SobolQMCNormalSampler
    from botorch.utils.multi_objective.box_decompositions import NondominatedPartitioning
    from torch import nn

    model_name, q, keywords = ACQUISITIONS[name]
    model = _model(model_name)
    model.eval()
    x, y = _data(outputs=2 if model_name in ("SingleTaskGP.two_outputs", "ModelListGP") else 1)
    ref_point = y.min(0).values - 0.1
    fills = {
        "$best_f": y[:, 0].max(),
        "$X": x,
        "$sampler": SobolQMCNormalSampler(torch.Size([SAMPLES]), seed=0),
        "$candidates": torch.rand(20, DIMS, generator=torch.Generator().manual_seed(3), dtype=torch.float64),
        "$ref_point": ref_point,
        "$partitioning": NondominatedPartitioning(ref_point=ref_point, Y=y),
    }
    keywords = {k: fills[v] if isinstance(v, str) and v.startswith("$") else v for k, v in keywords.items()}
    cls = name.split(".", 1)[0]
    analytic = importlib.import_module("botorch.acquisition.analytic")
    package = ("botorch.acquisition.multi_objective" if cls in MULTI_OBJECTIVE
               else "botorch.acquisition.analytic" if hasattr(analytic, cls) else "botorch.acquisition")
    acquisition = getattr(importlib.import_module(package), cls)(model, **keywords)
    candidates = _inputs(model_name, q)
    if cls == "qKnowledgeGradient":  # the one-shot formulation: fantasy points follow the candidates
        candidates = _inputs(model_name, q + keywords["num_fantasies"])

    class Acquisition(_Eval, nn.Module):
        """The acquisition function on a batch of candidates, its model in eval mode."""

        def __init__(self) -> None:
            super().__init__()
            self.acquisition = acquisition
            self.model = model

        def forward(self, x: torch.Tensor) -> Any:
            return self.acquisition(x)

        def entry_points(self) -> list[Any]:
            return [type(self.acquisition).forward]

    return Acquisition(), (candidates,), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")  # botorch's notes on input scaling and numerical warnings
    torch.manual_seed(0)
    kind, rest = name.split(".", 1)
    if kind == "posterior":
        return _posterior(rest)
    if kind == "loss":
        return _loss(rest)
    return _acquisition(rest)
