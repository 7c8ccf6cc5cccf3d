"""Ground-truth bench, sbi: density, ratio and vector-field estimators from its factories, their losses, and posteriors.

sbi's estimators are ``nn.Module``s built by the factories of ``sbi.neural_nets`` (``posterior_nn``,
``likelihood_nn``, ``classifier_nn``, ``posterior_score_nn``, ``posterior_flow_nn``) from a batch of
parameters ``theta`` (2-dimensional, under a ``BoxUniform`` prior) and simulations ``x`` (3-dimensional, a
linear Gaussian simulator), at tiny sizes (8 hidden features, 2 transforms, 2 mixture components). What users
compile is a method of such an estimator, so each model compiles one method through ``gt_calls.Method`` (its
entry point is that method):

- ``npe.<model>.<method>``: ``posterior_nn(model)`` for each density estimator (sbi's ``mdn``, the nflows
  ``made``, ``maf``, ``maf_rqs``, ``nsf`` and the zuko flows), its ``loss(theta, x)`` (the NPE training
  loss) and ``sample``, and for a few ``log_prob`` (of which ``loss`` is the negative); ``npe.<model>.<embedding>.loss``: with an embedding net for ``x``;
- ``nle.<model>.<method>``: ``likelihood_nn(model)``: the density of ``x`` given ``theta``; ``mnle.*``:
  the mixed (continuous and discrete) likelihood of ``likelihood_nn("mnle")``;
- ``nre.<classifier>``: ``classifier_nn`` (``linear``, ``mlp``, ``resnet``), the ratio estimator's forward;
- ``score.<net>.<sde>.loss`` / ``.forward`` and ``flow.<net>.loss`` / ``.forward`` / ``.ode_fn``: the
  vector-field estimators of NPSE and FMPE;
- ``trainer.<method>.loss``: an inference object (``NPE_C``, ``NLE_A``, ``NRE_A``, ``NRE_B``, ``NRE_C``,
  ``BNRE``, ``FMPE``, ``NPSE``) trained for one epoch on 64 simulations as its tutorials train it, then its
  own ``_loss`` on a batch (what each training step computes);
- ``posterior.*``: posteriors built from those trainers: ``DirectPosterior.log_prob`` and ``.sample``
  (rejection within the prior's support), the potentials that the MCMC, rejection and importance samplers
  evaluate (``posterior_estimator_based_potential``, ``likelihood_estimator_based_potential``,
  ``ratio_estimator_based_potential``), and ``VectorFieldPosterior.sample`` by SDE and by ODE;
- ``embedding.<net>``: the embedding nets of ``sbi.neural_nets.embedding_nets`` on their own.

Random weights, nothing downloaded. ``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]

THETA, X, BATCH, SIMULATIONS, SAMPLES = 2, 3, 8, 64, 16
SMALL = {"hidden_features": 8, "num_transforms": 2, "num_bins": 4, "num_components": 2}

DENSITY = ("mdn", "made", "maf", "maf_rqs", "nsf", "zuko_nice", "zuko_maf", "zuko_nsf", "zuko_ncsf",
           "zuko_sospf", "zuko_naf", "zuko_unaf", "zuko_gf", "zuko_bpf")
NPE_METHODS = ("loss", "sample")
NPE_LOG_PROB = ("mdn", "maf", "nsf", "zuko_maf", "zuko_nsf")  # ``loss`` is the negative ``log_prob``: a few suffice
NPE_EMBEDDINGS = ("maf.FCEmbedding", "nsf.CNNEmbedding", "zuko_nsf.FCEmbedding", "mdn.FCEmbedding")
NLE = ("mdn", "maf", "nsf", "zuko_maf")
NLE_METHODS = ("loss", "log_prob")
MNLE_METHODS = ("loss", "log_prob", "sample")
CLASSIFIERS = ("linear", "mlp", "resnet")
SCORE = ("mlp.ve", "mlp.vp", "mlp.subvp", "ada_mlp.ve", "ada_mlp.vp", "transformer.ve")
FLOW_NETS = ("mlp", "ada_mlp", "transformer")
TRAINERS = ("NPE_C", "NLE_A", "NRE_A", "NRE_B", "NRE_C", "BNRE", "FMPE", "NPSE")
POSTERIORS = ("DirectPosterior.log_prob", "DirectPosterior.sample", "potential.posterior",
              "potential.likelihood", "potential.ratio", "VectorFieldPosterior.score.sde",
              "VectorFieldPosterior.score.ode", "VectorFieldPosterior.flow.ode")
EMBEDDINGS = ("FCEmbedding", "CNNEmbedding.1d", "CNNEmbedding.2d", "CausalCNNEmbedding", "ResNetEmbedding1D",
              "ResNetEmbedding2D", "PermutationInvariantEmbedding", "LRUEmbedding", "SpectralConvEmbedding",
              "TransformerEmbedding")


def names() -> list[str]:
    models = [f"npe.{m}.{method}" for m in DENSITY for method in NPE_METHODS]
    models += [f"npe.{m}.log_prob" for m in NPE_LOG_PROB]
    models += [f"npe.{e}.loss" for e in NPE_EMBEDDINGS]
    models += [f"nle.{m}.{method}" for m in NLE for method in NLE_METHODS]
    models += [f"mnle.{method}" for method in MNLE_METHODS]
    models += [f"nre.{c}" for c in CLASSIFIERS]
    models += [f"score.{s}.loss" for s in SCORE] + ["score.mlp.ve.forward"]
    models += [f"flow.{n}.loss" for n in FLOW_NETS] + ["flow.mlp.forward", "flow.mlp.ode_fn"]
    models += [f"trainer.{t}.loss" for t in TRAINERS]
    models += [f"posterior.{p}" for p in POSTERIORS]
    return models + [f"embedding.{e}" for e in EMBEDDINGS]


def _problem() -> tuple[Any, Any, Any]:
    """The prior and a batch of simulations of a linear Gaussian simulator: ``(prior, theta, x)``."""
    import torch
    from sbi.utils import BoxUniform

    gen = torch.Generator().manual_seed(1)
    prior = BoxUniform(low=-2 * torch.ones(THETA), high=2 * torch.ones(THETA))
    theta = torch.rand(SIMULATIONS, THETA, generator=gen) * 4 - 2
    mixing = torch.tensor([[1.0, 0.5, -0.3], [0.2, -1.0, 0.7]])
    x = theta @ mixing + 0.1 * torch.randn(SIMULATIONS, X, generator=gen)
    return prior, theta, x


def _embedding(name: str, features: int = X) -> Any:
    """An embedding net of ``sbi.neural_nets.embedding_nets`` for inputs of ``features`` (or a shape)."""
    from sbi.neural_nets import embedding_nets as E
    from torch import nn

    if name == "FCEmbedding":
        return E.FCEmbedding(input_dim=features, output_dim=4, num_hiddens=8)
    if name == "CNNEmbedding.1d":
        return E.CNNEmbedding(input_shape=(16,), out_channels_per_layer=[4, 4], num_linear_units=8, output_dim=4,
                              kernel_size=3)
    if name == "CNNEmbedding.2d":
        return E.CNNEmbedding(input_shape=(8, 8), out_channels_per_layer=[4, 4], num_linear_units=8, output_dim=4,
                              kernel_size=3)
    if name == "CausalCNNEmbedding":
        return E.CausalCNNEmbedding(input_shape=(32,), num_conv_layers=3, out_channels_per_layer=[4, 4, 4],
                                    pool_kernel_size=8, output_dim=4)
    if name == "ResNetEmbedding1D":
        return E.ResNetEmbedding1D(c_in=16, c_out=4, n_blocks=2, c_internal=8, c_hidden_final=8)
    if name == "ResNetEmbedding2D":
        return E.ResNetEmbedding2D(c_in=1, c_out=4, c_hidden_fc=8, n_stages=2, blocks_per_stage=[1, 1], c_stages=[4, 8])
    if name == "PermutationInvariantEmbedding":
        trial_net = E.FCEmbedding(input_dim=X, output_dim=4, num_hiddens=8)
        return E.PermutationInvariantEmbedding(trial_net, trial_net_output_dim=4, num_hiddens=8, output_dim=4)
    if name == "LRUEmbedding":
        return E.LRUEmbedding(input_dim=2, output_dim=4, state_dim=4, hidden_dim=8, num_blocks=1)
    if name == "SpectralConvEmbedding":
        return E.SpectralConvEmbedding(in_channels=2, modes=4, out_channels=1, conv_channels=4, num_layers=2)
    if name == "TransformerEmbedding":
        from sbi.neural_nets.embedding_nets.transformer import TransformerEmbedding

        return TransformerEmbedding(feature_space_dim=2, num_attention_heads=1, num_key_value_heads=1,
                                    intermediate_size=16, num_hidden_layers=1, final_emb_dimension=2)
    return nn.Identity()


def _embedding_input(name: str) -> Any:
    import torch

    gen = torch.Generator().manual_seed(2)
    shapes = {"FCEmbedding": (BATCH, X), "CNNEmbedding.1d": (BATCH, 16), "CNNEmbedding.2d": (BATCH, 8, 8),
              "CausalCNNEmbedding": (BATCH, 32), "ResNetEmbedding1D": (BATCH, 16), "ResNetEmbedding2D": (BATCH, 1, 8, 8),
              "PermutationInvariantEmbedding": (BATCH, 5, X), "LRUEmbedding": (BATCH, 10, 2),
              "SpectralConvEmbedding": (BATCH, 2, 16), "TransformerEmbedding": (BATCH, 10, 2)}
    return torch.randn(*shapes[name], generator=gen)


def _density(kind: str, model: str, embedding: str | None = None) -> tuple[Any, Any, Any]:
    """A density estimator from ``posterior_nn`` or ``likelihood_nn``, built on the simulations as sbi builds it:
    ``(estimator, input, condition)``."""
    import torch
    from sbi.neural_nets import likelihood_nn, posterior_nn

    _, theta, x = _problem()
    if embedding is not None:  # x as the embedding net reads it
        gen = torch.Generator().manual_seed(3)
        x = torch.randn(SIMULATIONS, 16, generator=gen) if embedding.startswith("CNN") else x
        net = _embedding(f"{embedding}.1d" if embedding == "CNNEmbedding" else embedding)
        build_fn = posterior_nn(model, embedding_net=net, **SMALL)
    elif kind == "npe":
        build_fn = posterior_nn(model, **SMALL)
    else:
        build_fn = likelihood_nn(model, **SMALL)
    if kind == "nle":
        return build_fn(theta, x), x[:BATCH], theta[:BATCH]
    return build_fn(theta, x), theta[:BATCH], x[:BATCH]


def _estimator_method(estimator: Any, method: str, inputs: Any, condition: Any) -> Built:
    import torch

    from gt_calls import Method

    if method == "sample":
        return Method(estimator, "sample", sample_shape=torch.Size((4,))), (), {"condition": condition[:2]}
    return Method(estimator, method), (inputs, condition), {}


def _mnle(method: str) -> Built:
    import torch
    from sbi.neural_nets import likelihood_nn

    _, theta, x = _problem()
    gen = torch.Generator().manual_seed(4)
    x = torch.cat([x[:, :2].abs() + 0.1, torch.randint(0, 3, (SIMULATIONS, 1), generator=gen).float()], dim=1)
    estimator = likelihood_nn("mnle", hidden_features=8, num_transforms=2, num_bins=4,
                              log_transform_x=True)(theta, x)
    return _estimator_method(estimator, method, x[:BATCH], theta[:BATCH])


def _classifier(model: str) -> Built:
    from sbi.neural_nets import classifier_nn

    _, theta, x = _problem()
    estimator = classifier_nn(model, hidden_features=8)(theta, x)
    return estimator, (theta[:BATCH], x[:BATCH]), {}


def _vector_field(kind: str, net: str, sde: str, method: str) -> Built:
    import torch
    from sbi.neural_nets import posterior_flow_nn, posterior_score_nn

    from gt_calls import Method

    _, theta, x = _problem()
    sizes: dict[str, Any] = {"hidden_features": 8, "num_layers": 2, "t_embedding_dim": 4}
    if net == "transformer":
        sizes.update(num_heads=2, num_layers=1, hidden_features=8)
    if kind == "score":
        estimator = posterior_score_nn(model=net, sde_type=sde, **sizes)(theta, x)
    else:
        estimator = posterior_flow_nn(model=net, **sizes)(theta, x)
    times = torch.linspace(0.1, 0.9, BATCH)
    if method == "loss":
        return Method(estimator, "loss"), (theta[:BATCH], x[:BATCH]), {}
    if method == "ode_fn":
        return Method(estimator, "ode_fn"), (theta[:BATCH], x[:BATCH], times), {}
    return estimator, (theta[:BATCH], x[:BATCH], times), {}


def _trainer(method: str) -> Any:
    """An inference object of ``method`` trained for one epoch on the simulations, as its tutorials train it."""
    import sbi.inference as inference
    import tempfile

    from sbi.neural_nets import classifier_nn, likelihood_nn, posterior_flow_nn, posterior_nn, posterior_score_nn
    from torch.utils.tensorboard import SummaryWriter

    prior, theta, x = _problem()
    field = {"hidden_features": 8, "num_layers": 2, "t_embedding_dim": 4}
    estimator: dict[str, Any] = {
        "NPE_C": {"density_estimator": posterior_nn("maf", **SMALL)},
        "NLE_A": {"density_estimator": likelihood_nn("maf", **SMALL)},
        "FMPE": {"vf_estimator": posterior_flow_nn("mlp", **field)},
        "NPSE": {"vf_estimator": posterior_score_nn("mlp", sde_type="ve", **field), "sde_type": "ve"},
    }.get(method, {"classifier": classifier_nn("resnet", hidden_features=8)})
    # sbi's default writer logs into ``./sbi-logs``; the bench writes nothing into the checkout.
    writer = SummaryWriter(log_dir=tempfile.mkdtemp(prefix="gt-sbi-"))
    trainer = getattr(inference, method)(prior=prior, show_progress_bars=False, summary_writer=writer, **estimator)
    trainer.append_simulations(theta, x)
    trainer.train(max_num_epochs=1, training_batch_size=32, validation_fraction=0.25)
    return trainer


def _trainer_loss(method: str) -> Built:
    import torch
    from torch import nn

    trainer = _trainer(method)
    _, theta, x = _problem()

    class TrainLoss(nn.Module):
        """The trainer's own ``_loss`` on a batch, with the keywords its ``train`` passes."""

        def __init__(self) -> None:
            super().__init__()
            self.net = trainer._neural_net

        def forward(self, theta: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
            if method in ("NPE_C", "FMPE", "NPSE"):
                masks = torch.ones(theta.shape[0], 1, dtype=torch.bool)
                return trainer._loss(theta, x, masks, proposal=None, calibration_kernel=lambda x: torch.ones(x.shape[0]),
                                     force_first_round_loss=True).mean()
            if method == "NLE_A":
                return trainer._loss(theta, x).mean()
            if method == "NRE_C":
                return trainer._loss(theta, x, num_atoms=4, gamma=1.0).mean()
            if method == "BNRE":
                return trainer._loss(theta, x, num_atoms=2, regularization_strength=100.0).mean()
            return trainer._loss(theta, x, num_atoms=4 if method == "NRE_B" else 2).mean()

        def entry_points(self) -> list[Any]:
            return [type(trainer)._loss]

    return TrainLoss(), (theta[:BATCH], x[:BATCH]), {}


def _posterior(name: str) -> Built:
    import torch
    from sbi.inference import likelihood_estimator_based_potential, posterior_estimator_based_potential
    from sbi.inference import ratio_estimator_based_potential
    from torch import nn

    from gt_calls import Method

    class PosteriorMethod(Method):
        """A posterior's method (posteriors are not modules): its estimator is registered here so that the
        harness's switch between train and eval mode reaches it."""

        def __init__(self, posterior: Any, method: str, **static: Any) -> None:
            super().__init__(posterior, method, **static)
            self.net = getattr(posterior, "posterior_estimator", None) or posterior.potential_fn.vector_field_estimator

    prior, theta, x = _problem()
    x_o = x[:1]
    if name.startswith("potential."):
        kind = name.split(".")[1]
        trainer = _trainer({"posterior": "NPE_C", "likelihood": "NLE_A", "ratio": "NRE_B"}[kind])
        function = {"posterior": posterior_estimator_based_potential, "likelihood": likelihood_estimator_based_potential,
                    "ratio": ratio_estimator_based_potential}[kind]
        potential, _ = function(trainer._neural_net, prior, x_o)

        class Potential(nn.Module):
            """The potential (unnormalised log posterior) that sbi's MCMC, rejection and importance samplers evaluate."""

            def __init__(self) -> None:
                super().__init__()
                self.net = trainer._neural_net

            def forward(self, theta: torch.Tensor) -> torch.Tensor:
                return potential(theta, track_gradients=True)

            def entry_points(self) -> list[Any]:
                return [type(potential).__call__]

        return Potential(), (theta[:BATCH],), {}
    if name.startswith("DirectPosterior."):
        posterior = _trainer("NPE_C").build_posterior()
        posterior.set_default_x(x_o)
        if name.endswith("log_prob"):
            return PosteriorMethod(posterior, "log_prob", track_gradients=True,
                                   leakage_correction_params={"num_rejection_samples": 256}), (theta[:BATCH],), {}
        return PosteriorMethod(posterior, "sample", show_progress_bars=False), (torch.Size((SAMPLES,)),), {}
    _, kind, how = name.split(".")
    posterior = _trainer("NPSE" if kind == "score" else "FMPE").build_posterior()
    posterior.set_default_x(x_o)
    keywords: dict[str, Any] = {"sample_with": how, "show_progress_bars": False}
    if how == "sde":
        keywords["steps"] = 5
    return PosteriorMethod(posterior, "sample", **keywords), (torch.Size((SAMPLES,)),), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")  # sbi's notes on z-scoring tiny data and progress bars
    torch.manual_seed(0)
    group, _, rest = name.partition(".")
    if group == "npe":
        parts = rest.split(".")
        if len(parts) == 3:  # model, embedding net, method
            estimator, inputs, condition = _density("npe", parts[0], parts[1])
        else:
            estimator, inputs, condition = _density("npe", parts[0])
        return _estimator_method(estimator, parts[-1], inputs, condition)
    if group == "nle":
        model, method = rest.split(".")
        estimator, inputs, condition = _density("nle", model)
        return _estimator_method(estimator, method, inputs, condition)
    if group == "mnle":
        return _mnle(rest)
    if group == "nre":
        return _classifier(rest)
    if group in ("score", "flow"):
        parts = rest.split(".")
        net, sde, method = (parts[0], parts[1], parts[2]) if group == "score" else (parts[0], "", parts[1])
        return _vector_field(group, net, sde, method)
    if group == "trainer":
        return _trainer_loss(rest.split(".")[0])
    if group == "posterior":
        return _posterior(rest)
    return _embedding(rest), (_embedding_input(rest),), {}
