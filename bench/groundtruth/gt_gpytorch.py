"""Ground-truth bench, GPyTorch: exact, variational and multitask Gaussian processes.

Each model wraps a GP with its likelihood (``_GP``): in train mode the forward returns the negative
marginal log likelihood of the training data, in eval mode the predictive mean at test points (the
exact GP then solves against its training covariance). ``KERNELS`` are exact GPs with one kernel each;
``MODELS`` are the other families (variational strategies, multitask, additive structure, deep
kernel). ``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

KERNELS = ("RBFKernel", "MaternKernel", "PeriodicKernel", "RQKernel", "LinearKernel", "PolynomialKernel",
           "CosineKernel", "SpectralMixtureKernel", "PiecewisePolynomialKernel", "SpectralDeltaKernel",
           "AdditiveStructure", "ProductStructure", "ScaleRBF.ard", "InducingPoint", "GridInterpolation")
MODELS = ("variational.cholesky", "variational.meanfield", "variational.whitened", "variational.natural",
          "variational.unwhitened", "multitask.exact", "multitask.lmc", "multitask.independent",
          "heteroskedastic.fixed_noise", "student_t.likelihood", "bernoulli.classification")


def names() -> list[str]:
    return [f"exact.{k}" for k in KERNELS] + list(MODELS)


def _kernel(name: str, x: Any, likelihood: Any) -> Any:
    import gpytorch.kernels as K

    if name == "SpectralMixtureKernel":
        return K.SpectralMixtureKernel(num_mixtures=2, ard_num_dims=x.shape[-1])
    if name == "PolynomialKernel":
        return K.ScaleKernel(K.PolynomialKernel(power=2))
    if name == "SpectralDeltaKernel":
        return K.SpectralDeltaKernel(num_dims=x.shape[-1], num_deltas=8)
    if name == "AdditiveStructure":
        return K.AdditiveStructureKernel(K.RBFKernel(), num_dims=x.shape[-1])
    if name == "ProductStructure":
        return K.ProductStructureKernel(K.RBFKernel(), num_dims=x.shape[-1])
    if name == "ScaleRBF.ard":
        return K.ScaleKernel(K.RBFKernel(ard_num_dims=x.shape[-1]))
    if name == "InducingPoint":
        return K.InducingPointKernel(K.ScaleKernel(K.RBFKernel()), inducing_points=x[:4].clone(),
                                     likelihood=likelihood)
    if name == "GridInterpolation":
        return K.GridInterpolationKernel(K.RBFKernel(), grid_size=8, num_dims=x.shape[-1])
    return K.ScaleKernel(getattr(K, name)())


def build(name: str) -> Built:
    import gpytorch as G
    import torch
    from torch import nn

    gen = torch.Generator().manual_seed(0)
    dims = 1 if "GridInterpolation" in name or "SpectralDelta" in name else 2
    x = torch.rand(12, dims, generator=gen)
    y = torch.sin(6 * x.sum(-1)) + 0.1 * torch.randn(12, generator=gen)
    test = torch.rand(5, dims, generator=gen)
    tasks = 0
    if name.startswith("multitask"):
        tasks = 2
        y = torch.stack([y, -y], -1)
    if name.startswith("bernoulli"):
        y = (y > 0).float()
    likelihood: Any = (G.likelihoods.MultitaskGaussianLikelihood(num_tasks=2) if tasks
                       else G.likelihoods.FixedNoiseGaussianLikelihood(noise=torch.full((12,), 0.01))
                       if name.startswith("heteroskedastic")
                       else G.likelihoods.StudentTLikelihood() if name.startswith("student_t")
                       else G.likelihoods.BernoulliLikelihood() if name.startswith("bernoulli")
                       else G.likelihoods.GaussianLikelihood())
    exact = name.startswith(("exact.", "heteroskedastic", "multitask.exact"))
    if exact:
        kernel_name = name.split(".", 1)[1] if name.startswith("exact.") else "RBFKernel"
        kernel = _kernel(kernel_name, x, likelihood)
        if tasks:
            kernel = G.kernels.MultitaskKernel(G.kernels.RBFKernel(), num_tasks=2, rank=1)

        class Exact(G.models.ExactGP):
            def __init__(self) -> None:
                super().__init__(x, y, likelihood)
                self.mean = G.means.MultitaskMean(G.means.ConstantMean(), 2) if tasks else G.means.ConstantMean()
                self.kernel = kernel

            def forward(self, inputs: torch.Tensor) -> Any:
                dist = G.distributions.MultitaskMultivariateNormal if tasks else G.distributions.MultivariateNormal
                return dist(self.mean(inputs), self.kernel(inputs))

        gp: Any = Exact()
        mll: Any = G.mlls.ExactMarginalLogLikelihood(likelihood, gp)
    else:
        gp = _approximate(name, x)
        mll = G.mlls.VariationalELBO(likelihood, gp, num_data=12)

    class GP(nn.Module):
        """Negative marginal log likelihood in train mode, predictive mean in eval mode."""

        def __init__(self) -> None:
            super().__init__()
            self.gp = gp
            self.likelihood = likelihood

        def forward(self, inputs: torch.Tensor, targets: torch.Tensor, points: torch.Tensor) -> Any:
            if self.training:
                return -mll(self.gp(inputs), targets)
            return self.likelihood(self.gp(points)).mean

        def entry_points(self) -> list[Any]:
            return [type(self.gp).__mro__[1], type(mll), type(self.likelihood)]

    return GP(), (x, y, test), {}


def _approximate(name: str, x: Any) -> Any:
    import gpytorch as G
    import torch

    variational = G.variational
    inducing = x[:6].clone()
    family = name.split(".", 1)[1]
    shape = torch.Size([2]) if family == "lmc" else torch.Size([])
    if family == "lmc":
        inducing = inducing.expand(2, *inducing.shape).clone()
    distribution: Any = {
        "meanfield": variational.MeanFieldVariationalDistribution,
        "natural": variational.NaturalVariationalDistribution,
    }.get(family, variational.CholeskyVariationalDistribution)(6, batch_shape=shape)

    class Approximate(G.models.ApproximateGP):
        def __init__(self) -> None:
            if family == "lmc":
                strategy: Any = variational.LMCVariationalStrategy(
                    variational.VariationalStrategy(self, inducing, distribution, learn_inducing_locations=True),
                    num_tasks=2, num_latents=2, latent_dim=-1)
            elif family == "independent":
                strategy = variational.IndependentMultitaskVariationalStrategy(
                    variational.VariationalStrategy(self, inducing, distribution), num_tasks=2)
            elif family == "unwhitened":
                strategy = variational.UnwhitenedVariationalStrategy(self, inducing, distribution)
            else:
                strategy = variational.VariationalStrategy(self, inducing, distribution,
                                                           learn_inducing_locations=family != "whitened")
            super().__init__(strategy)
            self.mean = G.means.ConstantMean(batch_shape=shape)
            self.kernel = G.kernels.ScaleKernel(G.kernels.RBFKernel(batch_shape=shape), batch_shape=shape)

        def forward(self, inputs: torch.Tensor) -> Any:
            return G.distributions.MultivariateNormal(self.mean(inputs), self.kernel(inputs))

    return Approximate()
