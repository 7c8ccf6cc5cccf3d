"""Ground-truth bench, torchgan: GAN generators and discriminators, GAN layers, losses and their train_ops, metrics
and the trainer's step.

torchgan 0.1.0 is a GAN framework. Its ``models`` are the DCGAN generator and discriminator (transposed and strided
convolutions, optional batch norm, a ``feature_matching`` exit) and the models built on them: the conditional GAN
(a label embedding concatenated to the noise, or broadcast over the image), the ACGAN (a label embedding multiplied
into the noise; a discriminator with an auxiliary classifier head and a ``mode``), InfoGAN (discrete and continuous
latent codes; a discriminator returning ``OneHotCategorical`` and ``Normal`` posteriors) and BEGAN's auto-encoding
generator and discriminator (an encoder, a fully connected bottleneck and a decoder, returning the energy, the
reconstruction and the embeddings). Its ``layers`` are residual blocks (plain and transposed), dense-net blocks,
2-D self-attention, a spectral-norm wrapper (a power iteration writing the weight of the wrapped module), virtual
batch norm (a reference batch kept between calls) and minibatch discrimination. Its ``losses`` each have a
``forward`` and a ``train_ops`` (noise, the generator, the discriminator, ``backward`` and an optimizer step); the
``Trainer`` maps its attributes onto the arguments of each loss's ``train_ops`` and runs them in ``train_iter``.
The tables cover, at a batch of 2, 16 x 16 images of 3 channels, step channels of 4 and codes of 8:

- ``GENERATORS`` / ``DISCRIMINATORS``: every model class, with and without batch norm, other nonlinearities, a
  32 x 32 size, ``feature_matching``, the ACGAN modes, InfoGAN with and without codes and ``return_latents``, the
  auto-encoding discriminator's energy / reconstruction / embeddings outputs; ``SAMPLERS``: ``sampler`` and a
  generator fed by its own sampler, as the trainer's image logger does;
- ``LAYERS``: each layer and its options (shortcuts, last nonlinearity, bottlenecks, ``return_attn``, spectral
  norm over convolutions, a linear layer and several power iterations, virtual batch norm on 2-D and 4-D inputs and
  with ``clear=False``), and two discriminators composed of them as users write them;
- ``LOSSES``: every loss's ``forward`` under its options (reductions, label smoothing, saturating minimax, margins,
  BEGAN's ``k``), the gradient penalties (WGAN-GP, DRAGAN) over a discriminator's output, and InfoGAN's mutual
  information penalty over the discriminator's posteriors;
- ``TRAIN_OPS``: each loss's ``train_ops`` on the GAN it is meant for (DCGAN, conditional, ACGAN, InfoGAN, BEGAN,
  EBGAN with and without the pulling-away term), with weight clipping, historical averaging and feature matching;
- ``TRAINER``: ``Trainer.train_iter`` with the loss sets of DCGAN, LSGAN (several generator steps), WGAN-GP,
  conditional GAN, ACGAN, InfoGAN, BEGAN and historical averaging; ``eval_ops`` with a ``ClassifierScore``
  metric and ``optim_ops`` stepping a scheduler; ``METRICS``: ``ClassifierScore`` (a tiny classifier given, so
  nothing is downloaded) called, with a transform, its ``calculate_score`` and its ``metric_ops``.

Steps that train run under ``torch.enable_grad()``, so the eval (``no_grad``) pass trains too. torchgan imports
torchvision (``before_import`` lets it import on the CPU) and turns TensorBoard logging on when tensorboardX is
installed: ``before_import`` sets ``TENSORBOARD_LOGGING=0`` so the trainer's logger writes no event files, and the
trainer's checkpoint and image folders are temporary ones. The whole ``Trainer.train`` loop is left out: its image
logger calls torchvision's ``make_grid`` with a ``range`` keyword the installed torchvision no longer takes.
Random weights and inputs, nothing downloaded. ``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
BATCH, SIDE, CH, STEP, Z, CLASSES, DIS, CONT = 2, 16, 3, 4, 8, 3, 2, 2

# Name -> (class, constructor keywords, inputs: "z" / "z_y" / "z_codes" / "z_full", forward keywords).
GENERATORS: dict[str, tuple[str, dict[str, Any], str, dict[str, Any]]] = {
    "DCGANGenerator": ("DCGANGenerator", {}, "z", {}),
    "DCGANGenerator.no_batchnorm": ("DCGANGenerator", {"batchnorm": False}, "z", {}),
    "DCGANGenerator.out32.relu_sigmoid": ("DCGANGenerator", {"out_size": 32, "nonlinearity": "relu",
                                                             "last_nonlinearity": "sigmoid"}, "z", {}),
    "DCGANGenerator.feature_matching": ("DCGANGenerator", {}, "z", {"feature_matching": True}),
    "ConditionalGANGenerator": ("ConditionalGANGenerator", {"num_classes": CLASSES}, "z_y", {}),
    "ConditionalGANGenerator.no_batchnorm": ("ConditionalGANGenerator", {"num_classes": CLASSES, "batchnorm": False},
                                             "z_y", {}),
    "ACGANGenerator": ("ACGANGenerator", {"num_classes": CLASSES}, "z_y", {}),
    "ACGANGenerator.no_batchnorm.elu": ("ACGANGenerator", {"num_classes": CLASSES, "batchnorm": False,
                                                           "nonlinearity": "elu"}, "z_y", {}),
    "InfoGANGenerator": ("InfoGANGenerator", {"dim_dis": DIS, "dim_cont": CONT}, "z_codes", {}),
    "InfoGANGenerator.no_codes": ("InfoGANGenerator", {"dim_dis": DIS, "dim_cont": CONT}, "z_full", {}),
    "InfoGANGenerator.no_batchnorm": ("InfoGANGenerator", {"dim_dis": DIS, "dim_cont": CONT, "batchnorm": False},
                                      "z_codes", {}),
    "AutoEncodingGenerator": ("AutoEncodingGenerator", {}, "z", {}),
    "AutoEncodingGenerator.no_batchnorm": ("AutoEncodingGenerator", {"batchnorm": False}, "z", {}),
    "AutoEncodingGenerator.out32.relu": ("AutoEncodingGenerator", {"out_size": 32, "nonlinearity": "relu"}, "z", {}),
}
# Name -> (class, constructor keywords, inputs: "x" / "x_y", forward keywords).
DISCRIMINATORS: dict[str, tuple[str, dict[str, Any], str, dict[str, Any]]] = {
    "DCGANDiscriminator": ("DCGANDiscriminator", {}, "x", {}),
    "DCGANDiscriminator.no_batchnorm": ("DCGANDiscriminator", {"batchnorm": False}, "x", {}),
    "DCGANDiscriminator.in32.sigmoid": ("DCGANDiscriminator", {"in_size": 32, "last_nonlinearity": "sigmoid"}, "x",
                                        {}),
    "DCGANDiscriminator.feature_matching": ("DCGANDiscriminator", {}, "x", {"feature_matching": True}),
    "ConditionalGANDiscriminator": ("ConditionalGANDiscriminator", {"num_classes": CLASSES}, "x_y", {}),
    "ConditionalGANDiscriminator.no_batchnorm": ("ConditionalGANDiscriminator",
                                                 {"num_classes": CLASSES, "batchnorm": False}, "x_y", {}),
    "ConditionalGANDiscriminator.feature_matching": ("ConditionalGANDiscriminator", {"num_classes": CLASSES}, "x_y",
                                                     {"feature_matching": True}),
    "ACGANDiscriminator": ("ACGANDiscriminator", {"num_classes": CLASSES}, "x", {}),
    "ACGANDiscriminator.classifier": ("ACGANDiscriminator", {"num_classes": CLASSES}, "x", {"mode": "classifier"}),
    "ACGANDiscriminator.both": ("ACGANDiscriminator", {"num_classes": CLASSES}, "x", {"mode": "both"}),
    "ACGANDiscriminator.feature_matching": ("ACGANDiscriminator", {"num_classes": CLASSES, "batchnorm": False}, "x",
                                            {"feature_matching": True}),
    "InfoGANDiscriminator": ("InfoGANDiscriminator", {"dim_dis": DIS, "dim_cont": CONT}, "x", {}),
    "InfoGANDiscriminator.return_latents": ("InfoGANDiscriminator", {"dim_dis": DIS, "dim_cont": CONT}, "x",
                                            {"return_latents": True}),
    "InfoGANDiscriminator.no_batchnorm": ("InfoGANDiscriminator", {"dim_dis": DIS, "dim_cont": CONT,
                                                                   "batchnorm": False}, "x", {"return_latents": True}),
    "InfoGANDiscriminator.feature_matching": ("InfoGANDiscriminator", {"dim_dis": DIS, "dim_cont": CONT}, "x",
                                              {"feature_matching": True}),
    "AutoEncodingDiscriminator": ("AutoEncodingDiscriminator", {}, "x", {}),
    "AutoEncodingDiscriminator.embeddings": ("AutoEncodingDiscriminator", {"embeddings": True}, "x", {}),
    "AutoEncodingDiscriminator.reconstruction": ("AutoEncodingDiscriminator", {"energy": False}, "x", {}),
    "AutoEncodingDiscriminator.reconstruction.embeddings": ("AutoEncodingDiscriminator",
                                                            {"energy": False, "embeddings": True}, "x", {}),
    "AutoEncodingDiscriminator.feature_matching": ("AutoEncodingDiscriminator", {}, "x", {"feature_matching": True}),
    "AutoEncodingDiscriminator.no_batchnorm": ("AutoEncodingDiscriminator", {"batchnorm": False}, "x", {}),
    "AutoEncodingDiscriminator.in32": ("AutoEncodingDiscriminator", {"in_size": 32}, "x", {}),
}
# Name -> (generator name in GENERATORS, what: "sampler" (the method) or "generate" (the generator on its sample)).
SAMPLERS: dict[str, tuple[str, str]] = {
    "DCGANGenerator.sampler": ("DCGANGenerator", "sampler"),
    "ConditionalGANGenerator.sampler": ("ConditionalGANGenerator", "sampler"),
    "InfoGANGenerator.sampler": ("InfoGANGenerator", "sampler"),
    "DCGANGenerator.generate_from_sampler": ("DCGANGenerator", "generate"),
    "ACGANGenerator.generate_from_sampler": ("ACGANGenerator", "generate"),
    "InfoGANGenerator.generate_from_sampler": ("InfoGANGenerator", "generate"),
}
LAYERS = (
    "ResidualBlock2d", "ResidualBlock2d.shortcut.last_nonlinearity", "ResidualBlock2d.no_batchnorm",
    "ResidualBlockTranspose2d", "ResidualBlockTranspose2d.shortcut.no_batchnorm",
    "BasicBlock2d", "BasicBlock2d.no_batchnorm", "BottleneckBlock2d", "BottleneckBlock2d.no_batchnorm",
    "TransitionBlock2d", "TransitionBlockTranspose2d", "TransitionBlockTranspose2d.no_batchnorm",
    "DenseBlock2d.basic", "DenseBlock2d.bottleneck", "DenseBlock2d.no_batchnorm",
    "SelfAttention2d", "SelfAttention2d.return_attn", "SelfAttention2d.output_dims",
    "SpectralNorm2d.conv", "SpectralNorm2d.linear", "SpectralNorm2d.conv_transpose",
    "SpectralNorm2d.power_iterations3",
    "VirtualBatchNorm.4d", "VirtualBatchNorm.2d", "VirtualBatchNorm.keep_reference",
    "MinibatchDiscrimination1d", "MinibatchDiscrimination1d.intermediate4",
    "composed.sagan_discriminator", "composed.dense_discriminator",
)
# Name -> (class, constructor keywords, inputs: "dgz" / "dx_dgz" / "logits" / "features" / "pt" / "penalty" / "mi").
LOSSES: dict[str, tuple[str, dict[str, Any], str]] = {
    "MinimaxGeneratorLoss": ("MinimaxGeneratorLoss", {}, "dgz"),
    "MinimaxGeneratorLoss.saturating": ("MinimaxGeneratorLoss", {"nonsaturating": False}, "dgz"),
    "MinimaxGeneratorLoss.sum": ("MinimaxGeneratorLoss", {"reduction": "sum"}, "dgz"),
    "MinimaxDiscriminatorLoss": ("MinimaxDiscriminatorLoss", {}, "dx_dgz"),
    "MinimaxDiscriminatorLoss.label_smoothing": ("MinimaxDiscriminatorLoss", {"label_smoothing": 0.1}, "dx_dgz"),
    "MinimaxDiscriminatorLoss.none": ("MinimaxDiscriminatorLoss", {"reduction": "none"}, "dx_dgz"),
    "LeastSquaresGeneratorLoss": ("LeastSquaresGeneratorLoss", {}, "dgz"),
    "LeastSquaresGeneratorLoss.c": ("LeastSquaresGeneratorLoss", {"c": 0.9, "reduction": "sum"}, "dgz"),
    "LeastSquaresDiscriminatorLoss": ("LeastSquaresDiscriminatorLoss", {}, "dx_dgz"),
    "LeastSquaresDiscriminatorLoss.none": ("LeastSquaresDiscriminatorLoss", {"a": -1.0, "reduction": "none"},
                                           "dx_dgz"),
    "WassersteinGeneratorLoss": ("WassersteinGeneratorLoss", {}, "dgz"),
    "WassersteinDiscriminatorLoss": ("WassersteinDiscriminatorLoss", {}, "dx_dgz"),
    "WassersteinDiscriminatorLoss.sum": ("WassersteinDiscriminatorLoss", {"reduction": "sum"}, "dx_dgz"),
    "BoundaryEquilibriumGeneratorLoss": ("BoundaryEquilibriumGeneratorLoss", {}, "dgz"),
    "BoundaryEquilibriumDiscriminatorLoss": ("BoundaryEquilibriumDiscriminatorLoss", {"init_k": 0.5}, "dx_dgz"),
    "EnergyBasedGeneratorLoss": ("EnergyBasedGeneratorLoss", {}, "dgz"),
    "EnergyBasedDiscriminatorLoss": ("EnergyBasedDiscriminatorLoss", {"margin": 1.0}, "dx_dgz"),
    "EnergyBasedPullingAwayTerm": ("EnergyBasedPullingAwayTerm", {"pt_ratio": 0.5}, "pt"),
    "FeatureMatchingGeneratorLoss": ("FeatureMatchingGeneratorLoss", {}, "features"),
    "AuxiliaryClassifierGeneratorLoss": ("AuxiliaryClassifierGeneratorLoss", {}, "logits"),
    "AuxiliaryClassifierDiscriminatorLoss": ("AuxiliaryClassifierDiscriminatorLoss", {"reduction": "sum"}, "logits"),
    "WassersteinGradientPenalty": ("WassersteinGradientPenalty", {}, "penalty"),
    "DraganGradientPenalty": ("DraganGradientPenalty", {"k": 0.5}, "penalty"),
    "MutualInformationPenalty": ("MutualInformationPenalty", {}, "mi"),
}
# Name -> (loss class, loss keywords, GAN: "dcgan" / "cgan" / "acgan" / "infogan" / "began" / "ebgan" / "ebgan_pt",
# call: "gen" / "disc" / "feature" / "energy_disc" / "historical_gen" / "historical_disc" / "mi").
TRAIN_OPS: dict[str, tuple[str, dict[str, Any], str, str]] = {
    "MinimaxGeneratorLoss.train_ops": ("MinimaxGeneratorLoss", {}, "dcgan", "gen"),
    "MinimaxDiscriminatorLoss.train_ops": ("MinimaxDiscriminatorLoss", {}, "dcgan", "disc"),
    "MinimaxGeneratorLoss.train_ops.cgan": ("MinimaxGeneratorLoss", {}, "cgan", "gen"),
    "MinimaxDiscriminatorLoss.train_ops.cgan": ("MinimaxDiscriminatorLoss", {"label_smoothing": 0.2}, "cgan", "disc"),
    "MinimaxGeneratorLoss.train_ops.acgan": ("MinimaxGeneratorLoss", {}, "acgan", "gen"),
    "MinimaxDiscriminatorLoss.train_ops.acgan": ("MinimaxDiscriminatorLoss", {}, "acgan", "disc"),
    "LeastSquaresGeneratorLoss.train_ops": ("LeastSquaresGeneratorLoss", {}, "dcgan", "gen"),
    "LeastSquaresDiscriminatorLoss.train_ops": ("LeastSquaresDiscriminatorLoss", {}, "dcgan", "disc"),
    "WassersteinGeneratorLoss.train_ops": ("WassersteinGeneratorLoss", {}, "dcgan", "gen"),
    "WassersteinDiscriminatorLoss.train_ops": ("WassersteinDiscriminatorLoss", {}, "dcgan", "disc"),
    "WassersteinDiscriminatorLoss.train_ops.clip": ("WassersteinDiscriminatorLoss", {"clip": (-0.01, 0.01)}, "dcgan",
                                                    "disc"),
    "WassersteinGradientPenalty.train_ops": ("WassersteinGradientPenalty", {}, "dcgan", "disc"),
    "WassersteinGradientPenalty.train_ops.cgan": ("WassersteinGradientPenalty", {"lambd": 5.0}, "cgan", "disc"),
    "DraganGradientPenalty.train_ops": ("DraganGradientPenalty", {}, "dcgan", "disc"),
    "DraganGradientPenalty.train_ops.cgan": ("DraganGradientPenalty", {}, "cgan", "disc"),
    "BoundaryEquilibriumGeneratorLoss.train_ops": ("BoundaryEquilibriumGeneratorLoss", {}, "began", "gen"),
    "BoundaryEquilibriumDiscriminatorLoss.train_ops": ("BoundaryEquilibriumDiscriminatorLoss", {}, "began", "disc"),
    "EnergyBasedGeneratorLoss.train_ops": ("EnergyBasedGeneratorLoss", {}, "ebgan", "gen"),
    "EnergyBasedDiscriminatorLoss.train_ops": ("EnergyBasedDiscriminatorLoss", {"margin": 1.0}, "ebgan",
                                               "energy_disc"),
    "EnergyBasedPullingAwayTerm.train_ops": ("EnergyBasedPullingAwayTerm", {}, "ebgan_pt", "gen"),
    "FeatureMatchingGeneratorLoss.train_ops": ("FeatureMatchingGeneratorLoss", {}, "dcgan", "feature"),
    "FeatureMatchingGeneratorLoss.train_ops.cgan": ("FeatureMatchingGeneratorLoss", {}, "cgan", "feature"),
    "AuxiliaryClassifierGeneratorLoss.train_ops": ("AuxiliaryClassifierGeneratorLoss", {}, "acgan", "gen"),
    "AuxiliaryClassifierDiscriminatorLoss.train_ops": ("AuxiliaryClassifierDiscriminatorLoss", {}, "acgan", "disc"),
    "MutualInformationPenalty.train_ops": ("MutualInformationPenalty", {"lambd": 0.5}, "infogan", "mi"),
    "HistoricalAverageGeneratorLoss.train_ops": ("HistoricalAverageGeneratorLoss", {}, "dcgan", "historical_gen"),
    "HistoricalAverageDiscriminatorLoss.train_ops": ("HistoricalAverageDiscriminatorLoss", {"lambd": 0.5}, "dcgan",
                                                     "historical_disc"),
}
# Name -> (GAN, loss classes, ``ncritic``, what runs: "train_iter" / "eval_ops" / "optim_ops").
TRAINER: dict[str, tuple[str, tuple[str, ...], int, str]] = {
    "Trainer.train_iter.dcgan": ("dcgan", ("MinimaxGeneratorLoss", "MinimaxDiscriminatorLoss"), 1, "train_iter"),
    "Trainer.train_iter.lsgan.ngen2": ("dcgan", ("LeastSquaresGeneratorLoss", "LeastSquaresDiscriminatorLoss"), -2,
                                       "train_iter"),
    "Trainer.train_iter.wgan_gp": ("dcgan", ("WassersteinGeneratorLoss", "WassersteinDiscriminatorLoss",
                                             "WassersteinGradientPenalty"), 2, "train_iter"),
    "Trainer.train_iter.cgan": ("cgan", ("MinimaxGeneratorLoss", "MinimaxDiscriminatorLoss"), 1, "train_iter"),
    "Trainer.train_iter.acgan": ("acgan", ("MinimaxGeneratorLoss", "MinimaxDiscriminatorLoss",
                                           "AuxiliaryClassifierGeneratorLoss", "AuxiliaryClassifierDiscriminatorLoss"),
                                 1, "train_iter"),
    "Trainer.train_iter.infogan": ("infogan", ("MutualInformationPenalty",), 1, "train_iter"),
    "Trainer.train_iter.began": ("began", ("BoundaryEquilibriumGeneratorLoss", "BoundaryEquilibriumDiscriminatorLoss"),
                                 1, "train_iter"),
    "Trainer.train_iter.historical": ("dcgan", ("MinimaxGeneratorLoss", "MinimaxDiscriminatorLoss",
                                                "HistoricalAverageGeneratorLoss",
                                                "HistoricalAverageDiscriminatorLoss"), 1, "train_iter"),
    "Trainer.eval_ops.classifier_score": ("dcgan", ("MinimaxGeneratorLoss", "MinimaxDiscriminatorLoss"), 1,
                                          "eval_ops"),
    "Trainer.optim_ops.scheduler": ("dcgan", ("MinimaxGeneratorLoss", "MinimaxDiscriminatorLoss"), 1, "optim_ops"),
}
METRICS = ("ClassifierScore", "ClassifierScore.transform", "ClassifierScore.calculate_score",
           "ClassifierScore.metric_ops")


def names() -> list[str]:
    return (list(GENERATORS) + list(DISCRIMINATORS) + list(SAMPLERS) + list(LAYERS) + list(LOSSES)
            + list(TRAIN_OPS) + list(TRAINER) + list(METRICS))


def before_import() -> None:
    """Let torchgan import torchvision on the CPU, and turn its TensorBoard logging off (it is on whenever
    tensorboardX is installed) so the trainer's logger writes no event files."""
    import os

    import gt_models

    os.environ.setdefault("TENSORBOARD_LOGGING", "0")
    os.environ.setdefault("VISDOM_LOGGING", "0")
    gt_models.allow_torchvision_import()


def _gen(seed: int) -> Any:
    import torch

    return torch.Generator().manual_seed(seed)


def _randn(*shape: int, seed: int = 0) -> Any:
    import torch

    return torch.randn(*shape, generator=_gen(seed))


def _labels(seed: int = 5) -> Any:
    import torch

    return torch.randint(0, CLASSES, (BATCH,), generator=_gen(seed))


def _nonlinearity(name: str) -> Any:
    from torch import nn

    return {"relu": nn.ReLU(), "sigmoid": nn.Sigmoid(), "elu": nn.ELU(), "tanh": nn.Tanh()}[name]


def _model(cls: str, keywords: dict[str, Any], generator: bool) -> Any:
    """A torchgan model at the bench's sizes, ``keywords`` over them (nonlinearities named by strings)."""
    from torchgan import models

    keywords = dict(keywords)
    for key in ("nonlinearity", "last_nonlinearity"):
        if isinstance(keywords.get(key), str):
            keywords[key] = _nonlinearity(keywords[key])
    if generator:
        base: dict[str, Any] = {"encoding_dims": Z, "out_size": SIDE, "out_channels": CH, "step_channels": STEP}
    else:
        base = {"in_size": SIDE, "in_channels": CH, "step_channels": STEP}
        if cls == "AutoEncodingDiscriminator":
            base["encoding_dims"] = Z
    return getattr(models, cls)(**{**base, **keywords})


def _generators(name: str) -> Built:
    cls, keywords, inputs, call = GENERATORS[name]
    model = _model(cls, keywords, generator=True)
    if inputs == "z":
        args: tuple[Any, ...] = (_randn(BATCH, Z),)
    elif inputs == "z_y":
        args = (_randn(BATCH, Z), _labels())
    elif inputs == "z_codes":
        import torch

        codes = torch.nn.functional.one_hot(_labels() % DIS, DIS).float()
        args = (_randn(BATCH, Z), codes, _randn(BATCH, CONT, seed=3))
    else:
        args = (_randn(BATCH, Z + DIS + CONT),)
    return model, args, call


def _discriminators(name: str) -> Built:
    cls, keywords, inputs, call = DISCRIMINATORS[name]
    model = _model(cls, keywords, generator=False)
    side = keywords.get("in_size", SIDE)
    x = _randn(BATCH, CH, side, side)
    args = (x,) if inputs == "x" else (x, _labels())
    return model, args, call


def _samplers(name: str) -> Built:
    import torch

    from gt_calls import Method, Run

    source, what = SAMPLERS[name]
    cls, keywords, _, _ = GENERATORS[source]
    model = _model(cls, keywords, generator=True)
    cpu = torch.device("cpu")
    if what == "sampler":
        return Method(model, "sampler", sample_size=BATCH, device=cpu), (), {}
    return Run(model, lambda g: g(*g.sampler(BATCH, cpu)), [type(model).sampler, type(model)]), (), {}


def _layers(name: str) -> Built:
    import torch
    from torch import nn
    from torchgan import layers

    width = 8
    image = _randn(BATCH, width, 8, 8)
    if name == "ResidualBlock2d":
        return layers.ResidualBlock2d([width, 8, width], [3, 3], paddings=[1, 1]), (image,), {}
    if name == "ResidualBlock2d.shortcut.last_nonlinearity":
        return layers.ResidualBlock2d([width, 8, 16], [3, 3], paddings=[1, 1], shortcut=nn.Conv2d(width, 16, 1),
                                      last_nonlinearity=nn.ReLU()), (image,), {}
    if name == "ResidualBlock2d.no_batchnorm":
        return layers.ResidualBlock2d([width, width], [3], [1], [1], nonlinearity=nn.ELU(), batchnorm=False), \
            (image,), {}
    if name == "ResidualBlockTranspose2d":
        return layers.ResidualBlockTranspose2d([width, 8, width], [3, 3], paddings=[1, 1]), (image,), {}
    if name == "ResidualBlockTranspose2d.shortcut.no_batchnorm":
        return layers.ResidualBlockTranspose2d([width, 8, 16], [3, 3], paddings=[1, 1], batchnorm=False,
                                               shortcut=nn.ConvTranspose2d(width, 16, 1),
                                               last_nonlinearity=nn.Tanh()), (image,), {}
    if name.startswith(("BasicBlock2d", "BottleneckBlock2d", "TransitionBlock")):
        cls = getattr(layers, name.split(".")[0])
        batchnorm = not name.endswith("no_batchnorm")
        extra = {"bottleneck_channels": 6} if name == "BottleneckBlock2d.no_batchnorm" else {}
        kernel, stride = (4, 2) if "Transpose" in name else (3, 1)
        return cls(width, 4, kernel, stride, 1, batchnorm=batchnorm, **extra), (image,), {}
    if name.startswith("DenseBlock2d"):
        block = layers.BottleneckBlock2d if name.endswith("bottleneck") else layers.BasicBlock2d
        return layers.DenseBlock2d(3, width, 4, block, 3, padding=1, batchnorm=not name.endswith("no_batchnorm"),
                                   nonlinearity=nn.ReLU()), (image,), {}
    if name.startswith("SelfAttention2d"):
        keywords = {"return_attn": name.endswith("return_attn")}
        if name.endswith("output_dims"):
            keywords["output_dims"] = 4
        return layers.SelfAttention2d(16, **keywords), (_randn(BATCH, 16, 4, 4),), {}
    if name.startswith("SpectralNorm2d"):
        if name.endswith("linear"):
            return layers.SpectralNorm2d(nn.Linear(12, 6)), (_randn(BATCH, 12),), {}
        if name.endswith("conv_transpose"):
            return layers.SpectralNorm2d(nn.ConvTranspose2d(width, 4, 4, 2, 1)), (image,), {}
        iterations = 3 if name.endswith("power_iterations3") else 1
        return layers.SpectralNorm2d(nn.Conv2d(width, 16, 3, 1, 1), power_iterations=iterations), (image,), {}
    if name.startswith("VirtualBatchNorm"):
        from gt_calls import Keywords

        if name.endswith("2d"):
            return layers.VirtualBatchNorm(12), (_randn(BATCH + 2, 12),), {}
        if name.endswith("keep_reference"):
            return Keywords(layers.VirtualBatchNorm(width), clear=False), (image,), {}
        return layers.VirtualBatchNorm(width), (image,), {}
    if name.startswith("MinibatchDiscrimination1d"):
        intermediate = 4 if name.endswith("intermediate4") else 16
        return layers.MinibatchDiscrimination1d(12, 5, intermediate), (_randn(BATCH + 1, 12),), {}
    if name == "composed.sagan_discriminator":
        class _SAGANDiscriminator(nn.Module):
            """Spectral-normed convolutions around a self-attention block, minibatch discrimination before the
            critic, as a SAGAN-style discriminator is written with torchgan's layers."""

            def __init__(self) -> None:
                super().__init__()
                self.conv1 = layers.SpectralNorm2d(nn.Conv2d(CH, 16, 4, 2, 1))
                self.attention = layers.SelfAttention2d(16)
                self.conv2 = layers.SpectralNorm2d(nn.Conv2d(16, 8, 4, 2, 1))
                self.minibatch = layers.MinibatchDiscrimination1d(8 * 4 * 4, 4, 3)
                self.critic = nn.Linear(8 * 4 * 4 + 4, 1)

            def forward(self, x: torch.Tensor) -> torch.Tensor:
                h = nn.functional.leaky_relu(self.conv1(x), 0.2)
                h = nn.functional.leaky_relu(self.conv2(self.attention(h)), 0.2)
                return self.critic(self.minibatch(h.flatten(1))).squeeze(1)

            def entry_points(self) -> list[Any]:
                return [layers.SpectralNorm2d, layers.SelfAttention2d, layers.MinibatchDiscrimination1d]

        return _SAGANDiscriminator(), (_randn(BATCH, CH, SIDE, SIDE),), {}

    class _DenseDiscriminator(nn.Module):
        """A dense block, a transition, a residual block and virtual batch norm, then a linear critic."""

        def __init__(self) -> None:
            super().__init__()
            self.stem = nn.Conv2d(CH, 8, 3, 2, 1)
            self.dense = layers.DenseBlock2d(2, 8, 4, layers.BasicBlock2d, 3, padding=1)
            self.transition = layers.TransitionBlock2d(16, 8, 4, 2, 1)
            self.residual = layers.ResidualBlock2d([8, 8, 8], [3, 3], paddings=[1, 1])
            self.vbn = layers.VirtualBatchNorm(8)
            self.critic = nn.Linear(8 * 4 * 4, 1)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            h = self.residual(self.transition(self.dense(self.stem(x))))
            return self.critic(self.vbn(h).flatten(1)).squeeze(1)

        def entry_points(self) -> list[Any]:
            return [layers.DenseBlock2d, layers.TransitionBlock2d, layers.ResidualBlock2d, layers.VirtualBatchNorm]

    return _DenseDiscriminator(), (_randn(BATCH, CH, SIDE, SIDE),), {}


def _losses(name: str) -> Built:
    import torch
    from torch import nn
    from torchgan import losses

    from gt_calls import Run

    cls, keywords, inputs = LOSSES[name]
    loss = getattr(losses, cls)(**keywords)
    if inputs == "dgz":
        return loss, (_randn(BATCH),), {}
    if inputs == "dx_dgz":
        return loss, (_randn(BATCH), _randn(BATCH, seed=1)), {}
    if inputs == "logits":
        return loss, (_randn(BATCH, CLASSES), _labels()), {}
    if inputs == "features":
        return loss, (_randn(BATCH, 8, 4, 4), _randn(BATCH, 8, 4, 4, seed=1)), {}
    if inputs == "pt":
        return loss, (_randn(BATCH), _randn(BATCH, 8, 4, 4, seed=1)), {}
    if inputs == "penalty":
        discriminator = _model("DCGANDiscriminator", {}, generator=False)

        class _Penalty(nn.Module):
            """The penalty of a discriminator's output at points between (or around) real and fake images."""

            def __init__(self) -> None:
                super().__init__()
                self.discriminator = discriminator
                self.loss = loss

            def forward(self, real: torch.Tensor, fake: torch.Tensor) -> torch.Tensor:
                with torch.enable_grad():
                    interpolate = (0.3 * real + 0.7 * fake).detach().requires_grad_()
                    return self.loss(interpolate, self.discriminator(interpolate))

            def entry_points(self) -> list[Any]:
                return [type(loss)]

        return _Penalty(), (_randn(BATCH, CH, SIDE, SIDE), _randn(BATCH, CH, SIDE, SIDE, seed=1)), {}
    generator = _model("InfoGANGenerator", {"dim_dis": DIS, "dim_cont": CONT}, generator=True)
    discriminator = _model("InfoGANDiscriminator", {"dim_dis": DIS, "dim_cont": CONT}, generator=False)
    holder = nn.ModuleDict({"generator": generator, "discriminator": discriminator, "loss": loss})

    def penalty(owner: Any, z: torch.Tensor, c_dis: torch.Tensor, c_cont: torch.Tensor) -> torch.Tensor:
        _, dist_dis, dist_cont = owner["discriminator"](owner["generator"](z, c_dis, c_cont), True)
        return owner["loss"](c_dis, c_cont, dist_dis, dist_cont)

    codes = torch.nn.functional.one_hot(_labels() % DIS, DIS).float()
    return Run(holder, penalty, [type(loss)]), (_randn(BATCH, Z), codes, _randn(BATCH, CONT, seed=3)), {}


def _gan(kind: str) -> tuple[Any, Any]:
    """The generator and discriminator of a GAN kind at the bench's sizes."""
    if kind == "cgan":
        return (_model("ConditionalGANGenerator", {"num_classes": CLASSES}, True),
                _model("ConditionalGANDiscriminator", {"num_classes": CLASSES}, False))
    if kind == "acgan":
        return (_model("ACGANGenerator", {"num_classes": CLASSES}, True),
                _model("ACGANDiscriminator", {"num_classes": CLASSES}, False))
    if kind == "infogan":
        return (_model("InfoGANGenerator", {"dim_dis": DIS, "dim_cont": CONT}, True),
                _model("InfoGANDiscriminator", {"dim_dis": DIS, "dim_cont": CONT}, False))
    if kind == "began":
        return _model("AutoEncodingGenerator", {}, True), _model("AutoEncodingDiscriminator", {}, False)
    if kind == "ebgan":
        return _model("DCGANGenerator", {}, True), _model("AutoEncodingDiscriminator", {}, False)
    if kind == "ebgan_pt":
        return _model("DCGANGenerator", {}, True), _model("AutoEncodingDiscriminator", {"embeddings": True}, False)
    return _model("DCGANGenerator", {}, True), _model("DCGANDiscriminator", {}, False)


def _train_ops(name: str) -> Built:
    import torch
    from torch import nn
    from torchgan import losses

    cls, keywords, kind, call = TRAIN_OPS[name]
    loss = getattr(losses, cls)(**keywords)
    generator, discriminator = _gan(kind)
    opt_g = torch.optim.Adam(generator.parameters(), lr=1e-3, betas=(0.5, 0.999))
    opt_d = torch.optim.SGD(discriminator.parameters(), lr=1e-2)
    cpu = torch.device("cpu")

    class _TrainOps(nn.Module):
        """One ``loss.train_ops`` on a real batch (and its labels): noise, generator, discriminator, backward and
        the optimizer's step, as the trainer calls it."""

        def __init__(self) -> None:
            super().__init__()
            self.generator = generator
            self.discriminator = discriminator
            self.loss = loss

        def forward(self, real: torch.Tensor, labels: torch.Tensor) -> Any:
            with torch.enable_grad():
                if call == "gen":
                    return loss.train_ops(generator, discriminator, opt_g, cpu, BATCH, labels)
                if call == "disc":
                    return loss.train_ops(generator, discriminator, opt_d, real, cpu, labels)
                if call == "feature":
                    return loss.train_ops(generator, discriminator, opt_g, real, cpu, labels)
                if call == "energy_disc":
                    return loss.train_ops(generator, discriminator, opt_d, real, cpu, BATCH, labels)
                if call == "historical_gen":
                    return loss.train_ops(generator, opt_g)
                if call == "historical_disc":
                    return loss.train_ops(discriminator, opt_d)
                c_dis = nn.functional.one_hot(labels % DIS, DIS).float()
                return loss.train_ops(generator, discriminator, opt_g, opt_d, c_dis, real[:, 0, 0, :CONT], cpu,
                                      BATCH)

        def entry_points(self) -> list[Any]:
            return [type(loss).train_ops]

    return _TrainOps(), (_randn(BATCH, CH, SIDE, SIDE), _labels()), {}


def _trainer(kind: str, loss_names: tuple[str, ...], ncritic: int, metrics: list[Any] | None = None,
             scheduler: bool = False) -> Any:
    """A ``Trainer`` of the GAN ``kind`` with the named losses, on the CPU, its folders temporary."""
    import os
    import tempfile

    import torch
    from torchgan import losses, models
    from torchgan.trainer import Trainer

    classes = {"cgan": ("ConditionalGANGenerator", "ConditionalGANDiscriminator"),
               "acgan": ("ACGANGenerator", "ACGANDiscriminator"),
               "infogan": ("InfoGANGenerator", "InfoGANDiscriminator"),
               "began": ("AutoEncodingGenerator", "AutoEncodingDiscriminator")}.get(
        kind, ("DCGANGenerator", "DCGANDiscriminator"))
    extra: dict[str, Any] = {}
    if kind in ("cgan", "acgan"):
        extra = {"num_classes": CLASSES}
    elif kind == "infogan":
        extra = {"dim_dis": DIS, "dim_cont": CONT}
    g_args = {"encoding_dims": Z, "out_size": SIDE, "out_channels": CH, "step_channels": STEP, **extra}
    d_args = {"in_size": SIDE, "in_channels": CH, "step_channels": STEP, **extra}
    if kind == "began":
        d_args["encoding_dims"] = Z
    g_optimizer: dict[str, Any] = {"name": torch.optim.Adam, "args": {"lr": 1e-3, "betas": (0.5, 0.999)}}
    if scheduler:
        g_optimizer["scheduler"] = {"name": torch.optim.lr_scheduler.StepLR, "args": {"step_size": 1, "gamma": 0.9}}
    network = {
        "generator": {"name": getattr(models, classes[0]), "args": g_args, "optimizer": g_optimizer},
        "discriminator": {"name": getattr(models, classes[1]), "args": d_args,
                          "optimizer": {"name": torch.optim.SGD, "args": {"lr": 1e-2}}},
    }
    folder = os.path.join(tempfile.gettempdir(), "gt_torchgan")  # only created: a step saves nothing
    keywords: dict[str, Any] = {}
    if kind == "infogan":
        keywords = {"dis_code": torch.nn.functional.one_hot(_labels() % DIS, DIS).float(),
                    "cont_code": _randn(BATCH, CONT, seed=3)}
    trainer = Trainer(network, [getattr(losses, n)() for n in loss_names], metrics_list=metrics,
                      device=torch.device("cpu"), ncritic=ncritic, sample_size=BATCH,
                      checkpoints=f"{folder}/model/gan", recon=f"{folder}/images", log_dir=f"{folder}/logs",
                      **keywords)
    trainer.batch_size = BATCH
    return trainer


def _classifier() -> Any:
    from torch import nn

    return nn.Sequential(nn.Conv2d(CH, 4, 3, 2, 1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                         nn.Linear(4, CLASSES))


def _trainers(name: str) -> Built:
    import torch
    from torch import nn
    from torchgan.metrics import ClassifierScore
    from torchgan.trainer import BaseTrainer

    from gt_calls import Run

    kind, loss_names, ncritic, what = TRAINER[name]
    metrics = [ClassifierScore(_classifier(), sample_size=BATCH)] if what == "eval_ops" else None
    trainer = _trainer(kind, loss_names, ncritic, metrics, scheduler=what == "optim_ops")
    holder = nn.ModuleDict({"generator": trainer.generator, "discriminator": trainer.discriminator})
    if what == "eval_ops":
        return Run(holder, lambda owner: trainer.eval_ops(), [BaseTrainer.eval_ops]), (), {}
    if what == "optim_ops":
        return Run(holder, lambda owner: trainer.optim_ops(), [BaseTrainer.optim_ops]), (), {}

    def step(owner: Any, real: torch.Tensor, labels: torch.Tensor) -> Any:
        with torch.enable_grad():
            trainer.real_inputs = real
            trainer.labels = labels
            return trainer.train_iter()

    return Run(holder, step, [BaseTrainer.train_iter]), (_randn(BATCH, CH, SIDE, SIDE), _labels()), {}


def _metrics(name: str) -> Built:
    import torch
    from torch import nn
    from torchgan.metrics import ClassifierScore

    from gt_calls import Run

    def shrink(x: torch.Tensor) -> torch.Tensor:
        """A user's transform before the classifier: images resized to its input size."""
        return nn.functional.interpolate(x, size=(8, 8), mode="bilinear", align_corners=False)

    transform = shrink if name == "ClassifierScore.transform" else None
    metric = ClassifierScore(_classifier(), transform=transform, sample_size=BATCH)
    images = _randn(BATCH, CH, SIDE, SIDE)
    if name == "ClassifierScore.calculate_score":
        return Run(metric.classifier, lambda owner, x: metric.calculate_score(x),
                   [ClassifierScore.calculate_score]), (_randn(BATCH, CLASSES),), {}
    if name == "ClassifierScore.metric_ops":
        generator = _model("DCGANGenerator", {}, generator=True)
        holder = nn.ModuleDict({"classifier": metric.classifier, "generator": generator})
        return Run(holder, lambda owner: metric.metric_ops(owner["generator"], torch.device("cpu")),
                   [ClassifierScore.metric_ops]), (), {}
    return Run(metric.classifier, lambda owner, x: metric(x), [ClassifierScore]), (images,), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in GENERATORS:
        return _generators(name)
    if name in DISCRIMINATORS:
        return _discriminators(name)
    if name in SAMPLERS:
        return _samplers(name)
    if name in LAYERS:
        return _layers(name)
    if name in LOSSES:
        return _losses(name)
    if name in TRAIN_OPS:
        return _train_ops(name)
    if name in TRAINER:
        return _trainers(name)
    if name in METRICS:
        return _metrics(name)
    raise KeyError(name)
