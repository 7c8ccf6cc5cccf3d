"""Ground-truth bench, blitz (blitz-bayesian-pytorch): Bayes-by-backprop layers and their estimator methods.

blitz replaces a network's weights by trainable Gaussian posteriors (``TrainableRandomDistribution``: a
mean and a softplus-ed ``rho``) sampled at each forward, with a scale-mixture or user-given prior
(``PriorWeightDistribution``); each layer keeps the log posterior and log prior of its last sample, and
the ``variational_estimator`` class decorator adds the methods that sum them into a KL term and an ELBO.
The models of the tables are:

- ``LAYERS``: each Bayesian layer's forward in the configurations that change its code path:
  ``BayesianLinear`` (default, no bias, frozen, a mixture prior with ``prior_pi < 1``, a custom
  ``prior_dist``), ``BayesianConv1d`` / ``BayesianConv2d`` / ``BayesianConv3d`` (default, no bias,
  frozen, stride / padding / dilation / groups), ``BayesianLSTM`` (default, peephole, frozen, given
  hidden states, an explicit ``sharpen_loss`` with posterior sharpening on), ``BayesianGRU`` (default,
  frozen, given hidden states, sharpening), ``BayesianEmbedding`` (default, ``padding_idx``,
  ``max_norm``, frozen), and the ``Flipout`` wrapper of a linear, a convolution and an LSTM layer. The
  recurrent layers without bias are left out: their forward fails in eager mode already (they add
  ``None`` or index ``0``);
- ``DISTRIBUTIONS``: ``TrainableRandomDistribution.sample`` / ``log_posterior`` and
  ``PriorWeightDistribution.log_prior`` (scale mixture, single Gaussian, a custom distribution),
  ``kl_divergence_from_nn`` over a sampled network;
- ``ESTIMATOR``: the decorated user networks (an MLP regressor, a small Bayesian CNN classifier, an LSTM
  and a GRU regressor, an embedding + LSTM text classifier, blitz's own ``vgg11`` / ``vgg11_bn``) called
  as models, and the methods the decorator adds: ``nn_kl_divergence`` after a forward, ``sample_elbo``
  (with and without a complexity weight, on several networks), ``sample_elbo_detailed_loss`` (which
  converts its samples to NumPy), ``freeze_`` / ``unfreeze_`` around a forward, ``MOPED_``,
  ``mfvi_forward`` and ``forward_with_sharpening`` (gradients enabled, as it differentiates the loss);
- ``TRAIN``: train steps as the library's examples run them: ``sample_elbo``, ``backward`` and an Adam
  step, for the MLP, the CNN and the LSTM networks.

Every model is compiled in eval and in train mode; the wrappers that differentiate turn gradients on
whatever the mode. Tiny sizes (batch 2, widths 4 to 16, sequences of 5; VGG at 32 x 32 as its
classifier needs), random weights, nothing downloaded. ``names()`` needs no torch; ``build`` runs in a
worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
BATCH, DIM, HIDDEN, OUT, SEQ, VOCAB = 2, 8, 16, 4, 5, 20

# Layer model name -> (class name of ``blitz.modules``, constructor keywords, input kind). "prior_dist"
# stands for a Laplace prior. Inputs: "vec" (2, 8), "seq1" (2, 4, 12), "img" (2, 4, 8, 8), "vol" (2, 4, 6,
# 6, 6), "seq" (2, 5, 8), "seq.states" the same with initial states, "seq.sharpen" with a loss to sharpen
# on, "tok" (2, 5) token ids.
LAYERS: dict[str, tuple[str, dict[str, Any], str]] = {
    "BayesianLinear": ("BayesianLinear", {}, "vec"),
    "BayesianLinear.no_bias": ("BayesianLinear", {"bias": False}, "vec"),
    "BayesianLinear.frozen": ("BayesianLinear", {"freeze": True}, "vec"),
    "BayesianLinear.frozen.no_bias": ("BayesianLinear", {"freeze": True, "bias": False}, "vec"),
    "BayesianLinear.mixture_prior": ("BayesianLinear", {"prior_pi": 0.5, "prior_sigma_1": 1.0,
                                                        "prior_sigma_2": 0.01}, "vec"),
    "BayesianLinear.prior_dist": ("BayesianLinear", {"prior_dist": "prior_dist"}, "vec"),
    "BayesianConv1d": ("BayesianConv1d", {"kernel_size": 3}, "seq1"),
    "BayesianConv1d.no_bias.stride": ("BayesianConv1d", {"kernel_size": 3, "bias": False, "stride": 2,
                                                         "padding": 1}, "seq1"),
    "BayesianConv1d.frozen": ("BayesianConv1d", {"kernel_size": 3, "freeze": True}, "seq1"),
    "BayesianConv2d": ("BayesianConv2d", {"kernel_size": (3, 3)}, "img"),
    "BayesianConv2d.padding.dilation.groups": ("BayesianConv2d", {"kernel_size": (3, 3), "padding": 2, "dilation": 2,
                                                                  "groups": 2}, "img"),
    "BayesianConv2d.no_bias": ("BayesianConv2d", {"kernel_size": (3, 3), "bias": False}, "img"),
    "BayesianConv2d.frozen": ("BayesianConv2d", {"kernel_size": (3, 3), "freeze": True}, "img"),
    "BayesianConv2d.frozen.no_bias": ("BayesianConv2d", {"kernel_size": (3, 3), "freeze": True, "bias": False},
                                      "img"),
    "BayesianConv2d.mixture_prior": ("BayesianConv2d", {"kernel_size": (3, 3), "prior_pi": 0.5}, "img"),
    "BayesianConv3d": ("BayesianConv3d", {"kernel_size": (3, 3, 3)}, "vol"),
    "BayesianConv3d.no_bias.stride": ("BayesianConv3d", {"kernel_size": (3, 3, 3), "bias": False, "stride": 2},
                                      "vol"),
    "BayesianConv3d.frozen": ("BayesianConv3d", {"kernel_size": (3, 3, 3), "freeze": True}, "vol"),
    "BayesianLSTM": ("BayesianLSTM", {}, "seq"),
    "BayesianLSTM.peephole": ("BayesianLSTM", {"peephole": True}, "seq"),
    "BayesianLSTM.frozen": ("BayesianLSTM", {"freeze": True}, "seq"),
    "BayesianLSTM.frozen.peephole": ("BayesianLSTM", {"freeze": True, "peephole": True}, "seq"),
    "BayesianLSTM.hidden_states": ("BayesianLSTM", {}, "seq.states"),
    "BayesianLSTM.mixture_prior": ("BayesianLSTM", {"prior_pi": 0.5}, "seq"),
    "BayesianLSTM.sharpen_loss": ("BayesianLSTM", {"sharpen": True}, "seq.sharpen"),
    "BayesianGRU": ("BayesianGRU", {}, "seq"),
    "BayesianGRU.frozen": ("BayesianGRU", {"freeze": True}, "seq"),
    "BayesianGRU.hidden_states": ("BayesianGRU", {}, "seq.states"),
    "BayesianGRU.sharpen_loss": ("BayesianGRU", {"sharpen": True}, "seq.sharpen"),
    "BayesianEmbedding": ("BayesianEmbedding", {}, "tok"),
    "BayesianEmbedding.padding_idx": ("BayesianEmbedding", {"padding_idx": 0}, "tok"),
    "BayesianEmbedding.max_norm": ("BayesianEmbedding", {"max_norm": 1.0}, "tok"),
    "BayesianEmbedding.frozen": ("BayesianEmbedding", {"freeze": True}, "tok"),
    "Flipout.BayesianLinear": ("BayesianLinear", {}, "vec"),
    "Flipout.BayesianConv2d": ("BayesianConv2d", {"kernel_size": (3, 3)}, "img"),
    "Flipout.BayesianLSTM": ("BayesianLSTM", {}, "seq.states"),
}
DISTRIBUTIONS = (
    "TrainableRandomDistribution.sample", "TrainableRandomDistribution.log_posterior",
    "TrainableRandomDistribution.log_posterior.given_w", "PriorWeightDistribution.log_prior.mixture",
    "PriorWeightDistribution.log_prior.single", "PriorWeightDistribution.log_prior.dist", "kl_divergence_from_nn",
)
# Estimator model name -> (network: "mlp", "cnn", "lstm", "gru", "text", "vgg11", "vgg11_bn"; what is
# compiled: "forward", a method name of the decorator, or one of "kl", "freeze", "unfreeze", "elbo.weighted").
ESTIMATOR: dict[str, tuple[str, str]] = {
    "mlp": ("mlp", "forward"),
    "cnn": ("cnn", "forward"),
    "lstm": ("lstm", "forward"),
    "gru": ("gru", "forward"),
    "text": ("text", "forward"),
    "vgg11": ("vgg11", "forward"),
    "vgg11_bn": ("vgg11_bn", "forward"),
    "mlp.nn_kl_divergence": ("mlp", "kl"),
    "lstm.nn_kl_divergence": ("lstm", "kl"),
    "mlp.sample_elbo": ("mlp", "sample_elbo"),
    "mlp.sample_elbo.complexity_weight": ("mlp", "elbo.weighted"),
    "cnn.sample_elbo": ("cnn", "sample_elbo"),
    "lstm.sample_elbo": ("lstm", "sample_elbo"),
    "text.sample_elbo": ("text", "sample_elbo"),
    "vgg11.sample_elbo": ("vgg11", "sample_elbo"),
    "mlp.sample_elbo_detailed_loss": ("mlp", "sample_elbo_detailed_loss"),
    "mlp.freeze_": ("mlp", "freeze"),
    "cnn.freeze_": ("cnn", "freeze"),
    "mlp.unfreeze_": ("mlp", "unfreeze"),
    "mlp.MOPED_": ("mlp", "MOPED_"),
    "mlp.mfvi_forward": ("mlp", "mfvi_forward"),
    "cnn.mfvi_forward": ("cnn", "mfvi_forward"),
    "lstm.forward_with_sharpening": ("lstm", "forward_with_sharpening"),
    "gru.forward_with_sharpening": ("gru", "forward_with_sharpening"),
}
TRAIN = ("train_step.mlp", "train_step.cnn", "train_step.lstm")


def names() -> list[str]:
    return list(LAYERS) + list(DISTRIBUTIONS) + list(ESTIMATOR) + list(TRAIN)


def _gen(seed: int) -> Any:
    import torch

    return torch.Generator().manual_seed(seed)


def _inputs(kind: str, layer: Any) -> tuple[Any, ...]:
    import torch

    gen = _gen(1)
    if kind == "vec":
        return (torch.randn(BATCH, DIM, generator=gen),)
    if kind == "seq1":
        return (torch.randn(BATCH, 4, 12, generator=gen),)
    if kind == "img":
        return (torch.randn(BATCH, 4, 8, 8, generator=gen),)
    if kind == "vol":
        return (torch.randn(BATCH, 4, 6, 6, 6, generator=gen),)
    if kind == "tok":
        return (torch.randint(0, VOCAB, (BATCH, SEQ), generator=gen),)
    x = torch.randn(BATCH, SEQ, DIM, generator=gen)
    if kind == "seq":
        return (x,)
    h = torch.randn(BATCH, HIDDEN, generator=gen) * 0.1
    if kind == "seq.states":
        states = (h, torch.randn(BATCH, HIDDEN, generator=gen) * 0.1) if type(layer).__name__.endswith("LSTM") else h
        return (x, states)
    return (x,)


def _layer(name: str) -> Built:
    import torch
    from blitz import modules
    from blitz.utils import Flipout

    from gt_calls import Run

    cls_name, keywords, kind = LAYERS[name]
    keywords = dict(keywords)
    if keywords.get("prior_dist") == "prior_dist":
        keywords["prior_dist"] = torch.distributions.Laplace(0.0, 0.5)
    cls = getattr(modules, cls_name)
    if name.startswith("Flipout."):
        cls = Flipout(cls)
    if cls_name.startswith("BayesianConv"):
        layer = cls(4, 6, **keywords)
    elif cls_name == "BayesianEmbedding":
        layer = cls(VOCAB, DIM, **keywords)
    elif cls_name in ("BayesianLSTM", "BayesianGRU"):
        layer = cls(DIM, HIDDEN, **keywords)
    else:
        layer = cls(DIM, OUT, **keywords)
    inputs = _inputs(kind, layer)
    if name == "Flipout.BayesianLSTM":
        def flipout_lstm(owner: Any, x: Any, states: Any) -> Any:
            out, new_states = owner(x, states)  # the wrapper returns the states as a generator
            return out, tuple(new_states)

        return Run(layer, flipout_lstm, [cls.forward]), inputs, {}
    if kind == "seq.sharpen":
        def sharpened(owner: Any, x: Any) -> Any:
            """A first pass, a loss on it, then the forward that sharpens the posterior with that loss."""
            with torch.enable_grad():
                out, _ = owner(x)
                loss = out.pow(2).mean()
                return owner(x, sharpen_loss=loss)[0]

        return Run(layer, sharpened, [type(layer).forward, type(layer).sharpen_posterior]), inputs, {}
    return layer, inputs, {}


def _distribution(name: str) -> Built:
    import torch
    from blitz.losses import kl_divergence_from_nn
    from blitz.modules import PriorWeightDistribution, TrainableRandomDistribution

    from gt_calls import Run

    gen = _gen(2)
    mu, rho = torch.randn(6, 4, generator=gen) * 0.1, torch.full((6, 4), -5.0)
    w = torch.randn(6, 4, generator=gen) * 0.1
    if name.startswith("TrainableRandomDistribution"):
        dist = TrainableRandomDistribution(mu, rho)
        if name.endswith(".sample"):
            return Run(dist, lambda owner, x: owner.sample() * x, [TrainableRandomDistribution.sample]), (w,), {}
        given = name.endswith("given_w")

        def posterior(owner: Any, x: Any) -> Any:
            owner.sample()
            return owner.log_posterior(x) if given else owner.log_posterior()

        return Run(dist, posterior, [TrainableRandomDistribution.sample,
                                     TrainableRandomDistribution.log_posterior]), (w,), {}
    if name.startswith("PriorWeightDistribution"):
        kind = name.rsplit(".", 1)[1]
        prior = {"mixture": lambda: PriorWeightDistribution(0.5, 1.0, 0.002),
                 "single": lambda: PriorWeightDistribution(),
                 "dist": lambda: PriorWeightDistribution(dist=torch.distributions.Normal(0.0, 0.3))}[kind]()
        return Run(prior, lambda owner, x: owner.log_prior(x), [PriorWeightDistribution.log_prior]), (w,), {}
    net = _network("mlp")

    def kl(owner: Any, x: Any) -> Any:
        owner(x)
        return kl_divergence_from_nn(owner)

    return Run(net, kl, [kl_divergence_from_nn]), (torch.randn(BATCH, DIM, generator=gen),), {}


def _network(kind: str) -> Any:
    """A user network decorated with ``variational_estimator``, as blitz's examples write them."""
    import torch
    from blitz.modules import BayesianConv2d, BayesianEmbedding, BayesianGRU, BayesianLinear, BayesianLSTM
    from blitz.utils import variational_estimator
    from torch import nn

    if kind in ("vgg11", "vgg11_bn"):
        from blitz.models import b_vgg

        return getattr(b_vgg, kind)()

    @variational_estimator
    class BayesianRegressor(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.blinear1 = BayesianLinear(DIM, HIDDEN)
            self.blinear2 = BayesianLinear(HIDDEN, OUT)

        def forward(self, x: Any) -> Any:
            return self.blinear2(torch.relu(self.blinear1(x)))

    @variational_estimator
    class BayesianCNN(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv1 = BayesianConv2d(1, 4, (3, 3))
            self.conv2 = BayesianConv2d(4, 8, (3, 3))
            self.fc = BayesianLinear(8 * 3 * 3, 10)

        def forward(self, x: Any) -> Any:
            out = torch.max_pool2d(torch.relu(self.conv1(x)), 2)
            out = torch.relu(self.conv2(out))
            return self.fc(out.view(out.shape[0], -1))

    @variational_estimator
    class BayesianRecurrent(nn.Module):
        def __init__(self, cell: Any) -> None:
            super().__init__()
            self.rnn = cell(DIM, HIDDEN, prior_sigma_1=1, prior_pi=1, posterior_rho_init=-3.0)
            self.linear = nn.Linear(HIDDEN, 1)

        def forward(self, x: Any) -> Any:
            out, _ = self.rnn(x)
            return self.linear(out[:, -1, :])

    @variational_estimator
    class BayesianTextClassifier(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.embedding = BayesianEmbedding(VOCAB, DIM, padding_idx=0)
            self.rnn = BayesianLSTM(DIM, HIDDEN)
            self.head = BayesianLinear(HIDDEN, 3)

        def forward(self, x: Any) -> Any:
            out, _ = self.rnn(self.embedding(x))
            return self.head(out.mean(dim=1))

    return {"mlp": BayesianRegressor, "cnn": BayesianCNN, "text": BayesianTextClassifier,
            "lstm": lambda: BayesianRecurrent(BayesianLSTM), "gru": lambda: BayesianRecurrent(BayesianGRU)}[kind]()


def _data(kind: str) -> tuple[Any, Any, Any]:
    """Inputs, labels and the criterion of the examples for this network."""
    import torch
    from torch import nn

    gen = _gen(3)
    if kind == "mlp":
        return torch.randn(BATCH, DIM, generator=gen), torch.randn(BATCH, OUT, generator=gen), nn.MSELoss()
    if kind == "cnn":
        return (torch.randn(BATCH, 1, 12, 12, generator=gen), torch.randint(0, 10, (BATCH,), generator=gen),
                nn.CrossEntropyLoss())
    if kind in ("lstm", "gru"):
        return torch.randn(BATCH, SEQ, DIM, generator=gen), torch.randn(BATCH, 1, generator=gen), nn.MSELoss()
    if kind == "text":
        return (torch.randint(0, VOCAB, (BATCH, SEQ), generator=gen), torch.randint(0, 3, (BATCH,), generator=gen),
                nn.CrossEntropyLoss())
    return (torch.randn(BATCH, 3, 32, 32, generator=gen), torch.randint(0, 10, (BATCH,), generator=gen),
            nn.CrossEntropyLoss())


def _estimator(name: str) -> Built:
    import torch

    from gt_calls import Method, Run

    kind, what = ESTIMATOR[name]
    net = _network(kind)
    x, y, criterion = _data(kind)
    cls = type(net)
    if what == "forward":
        return net, (x,), {}
    if what == "kl":
        def kl(owner: Any, x_: Any) -> Any:
            return owner(x_).sum() + owner.nn_kl_divergence()

        return Run(net, kl, [cls.forward, cls.nn_kl_divergence]), (x,), {}
    if what in ("sample_elbo", "elbo.weighted", "sample_elbo_detailed_loss"):
        method = "sample_elbo_detailed_loss" if what == "sample_elbo_detailed_loss" else "sample_elbo"
        weight = 1 / 100 if what == "elbo.weighted" else 1
        return Method(net, method, criterion=criterion, sample_nbr=3, complexity_cost_weight=weight), (x, y), {}
    if what in ("freeze", "unfreeze"):
        def frozen(owner: Any, x_: Any) -> Any:
            owner.freeze_()
            try:
                return owner(x_)
            finally:
                owner.unfreeze_()

        def unfrozen(owner: Any, x_: Any) -> Any:
            owner.freeze_()
            owner.unfreeze_()
            return owner(x_)

        run = frozen if what == "freeze" else unfrozen
        return Run(net, run, [cls.freeze_, cls.unfreeze_, cls.forward]), (x,), {}
    if what == "MOPED_":
        def moped(owner: Any, x_: Any) -> Any:
            owner.MOPED_(delta=0.05)
            return owner(x_)

        return Run(net, moped, [cls.MOPED_, cls.forward]), (x,), {}
    if what == "mfvi_forward":
        return Method(net, "mfvi_forward", sample_nbr=3), (x,), {}

    def sharpening(owner: Any, x_: Any, y_: Any) -> Any:
        """``forward_with_sharpening`` differentiates the first loss: gradients on, whatever the mode."""
        with torch.enable_grad():
            return owner.forward_with_sharpening(x_, y_, criterion)

    for module in net.modules():  # the recurrent layer must be built with sharpening on
        if hasattr(module, "sharpen") and not module.sharpen:
            module.sharpen = True
            module.init_sharpen_parameters()
    return Run(net, sharpening, [cls.forward_with_sharpening]), (x, y), {}


def _train_step(name: str) -> Built:
    import torch

    from gt_calls import Run

    kind = name.rsplit(".", 1)[1]
    net = _network(kind)
    x, y, criterion = _data(kind)
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)

    def step(owner: Any, x_: Any, y_: Any) -> Any:
        with torch.enable_grad():
            optimizer.zero_grad()
            loss = owner.sample_elbo(inputs=x_, labels=y_, criterion=criterion, sample_nbr=2,
                                     complexity_cost_weight=1 / 50)
            loss.backward()
            optimizer.step()
            return loss.detach()

    return Run(net, step, [type(net).sample_elbo, type(net).forward]), (x, y), {}


def build(name: str) -> Built:
    import torch

    torch.manual_seed(0)
    if name in LAYERS:
        return _layer(name)
    if name in DISTRIBUTIONS:
        return _distribution(name)
    if name in ESTIMATOR:
        return _estimator(name)
    if name in TRAIN:
        return _train_step(name)
    raise KeyError(name)
