"""Ground-truth bench, geotorch: constrained parametrizations of layers, the manifolds behind them, and the
models and training steps that use them.

geotorch turns a constraint into a parametrization: ``geotorch.orthogonal(layer, "weight")`` (and
``grassmannian``, ``sphere``, ``skew``, ``symmetric``, ``almost_orthogonal``, ``low_rank``, ``fixed_rank``,
``invertible``, ``sln``, ``positive_definite``, ``positive_semidefinite``, its low- and fixed-rank variants
and ``alpha_stable``) samples a point of a manifold (``Stiefel``, ``Grassmannian``, ``Sphere``, ``LowRank``,
``PSD``, ``Hurwitz``...) and registers it with ``torch.nn.utils.parametrize``, so that reading
``layer.weight`` runs the manifold's ``forward`` (a trivialization such as the matrix exponential or the
Cayley map of a skew-symmetric matrix, a product of Stiefel factors and singular or eigen values). So:

- ``LAYERS``: a ``Linear`` (square 8 x 8, tall 12 x 8, wide 8 x 12) or a ``Conv2d`` (its 3 x 3 kernels as
  a batch of matrices) with one constraint, called on a batch of 2, in the configurations that change
  the manifold's code: the ``"expm"`` and ``"cayley"`` trivializations and a custom callable one, tall
  and wide (transposed) shapes, tensors of matrices, ``lower=False``, the sphere on a bias and on the
  rows of a weight, embedded or by the exponential map, another radius, each ``f`` of
  ``almost_orthogonal`` (``sin``, ``tanh``, ``scaled_sigmoid``, a pair of callables), ``lam=0``, pairs of
  callables as the ``f`` of the rank and definite constraints, ranks, ``alpha`` of ``alpha_stable``;
- ``MODELS``: the README's ``Model`` (an orthogonal ``Linear`` after a ``Conv2d`` with kernels of rank 1),
  the copying problem's ``ExpRNN`` cell (an orthogonal recurrent kernel initialised with
  ``sample("torus")``, a ``modrelu``, unrolled over 6 steps; with ``parametrize.cached()`` around the loop,
  as the README advises, and with the Cayley map), and bench train steps whose loss is returned: an
  orthogonal MLP classifier, a low-rank regression, a positive-definite quadratic form and the RNN;
- ``UPDATE_BASE``: a constrained layer's forward followed by ``geotorch.update_base`` (what the examples
  call between steps for Riemannian gradient descent): it assigns the weight back, which runs the
  manifold's ``right_inverse`` and its ``in_manifold`` check;
- ``MANIFOLDS``: the manifolds as modules, with their own methods as forward code: ``sample`` (uniform and
  torus for the orthogonal groups, factorized for the rank ones, lower or upper for ``Skew``) and
  ``check`` (``in_manifold`` then ``right_inverse`` of a point sampled eagerly), plus the initialisers
  ``uniform_init_``, ``torus_init_`` and ``uniform_init_sphere_``.

Every model runs in eager mode; left out for failing there in 0.4.0: ``almost_orthogonal`` on a wide
matrix (its ``sample`` returns the untransposed tall matrix) and a single callable without inverse as an
``f`` (registering the constraint calls ``right_inverse``, which needs the inverse). Matrices are 8 x 8 to 12 x 8, a batch of 2; random weights, nothing
downloaded. ``names()`` needs no torch; ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
BATCH, N = 2, 8

# Layer name -> (constraint of ``geotorch``, layer kind, keywords). Kinds: "square" ``Linear(8, 8)``, "tall"
# ``Linear(8, 12)`` (a 12 x 8 weight), "wide" ``Linear(12, 8)`` (8 x 12), "conv" ``Conv2d(4, 8, 3)`` (8 x 4 of
# 3 x 3 kernels), "bias" the bias of ``Linear(8, 8)``. Keyword values "expm_callable" (``torch.linalg.matrix_exp``),
# "tanh_atanh_pair" and "exp_log_pair" stand for a callable and pairs of callables built in the worker.
LAYERS: dict[str, tuple[str, str, dict[str, Any]]] = {
    "orthogonal.square": ("orthogonal", "square", {}),
    "orthogonal.tall": ("orthogonal", "tall", {}),
    "orthogonal.wide": ("orthogonal", "wide", {}),
    "orthogonal.square.cayley": ("orthogonal", "square", {"triv": "cayley"}),
    "orthogonal.tall.cayley": ("orthogonal", "tall", {"triv": "cayley"}),
    "orthogonal.conv": ("orthogonal", "conv", {}),
    "orthogonal.square.custom_triv": ("orthogonal", "square", {"triv": "expm_callable"}),
    "grassmannian.tall": ("grassmannian", "tall", {}),
    "grassmannian.wide": ("grassmannian", "wide", {}),
    "grassmannian.tall.cayley": ("grassmannian", "tall", {"triv": "cayley"}),
    "sphere.bias": ("sphere", "bias", {}),
    "sphere.rows": ("sphere", "square", {}),
    "sphere.bias.radius": ("sphere", "bias", {"radius": 2.0}),
    "sphere.bias.embedded": ("sphere", "bias", {"embedded": True}),
    "sphere.rows.embedded": ("sphere", "square", {"embedded": True}),
    "sphere.conv": ("sphere", "conv", {}),
    "skew.square": ("skew", "square", {}),
    "skew.square.upper": ("skew", "square", {"lower": False}),
    "skew.conv": ("skew", "conv", {}),
    "symmetric.square": ("symmetric", "square", {}),
    "symmetric.square.upper": ("symmetric", "square", {"lower": False}),
    "symmetric.conv": ("symmetric", "conv", {}),
    "almost_orthogonal.square": ("almost_orthogonal", "square", {}),
    "almost_orthogonal.tall.tanh": ("almost_orthogonal", "tall", {"lam": 0.5, "f": "tanh"}),
    "almost_orthogonal.tall.scaled_sigmoid": ("almost_orthogonal", "tall", {"f": "scaled_sigmoid"}),
    "almost_orthogonal.square.cayley": ("almost_orthogonal", "square", {"triv": "cayley"}),
    "almost_orthogonal.square.pair": ("almost_orthogonal", "square", {"f": "tanh_atanh_pair"}),
    "almost_orthogonal.square.lam0": ("almost_orthogonal", "square", {"lam": 0.0}),
    "low_rank.tall": ("low_rank", "tall", {"rank": 3}),
    "low_rank.wide": ("low_rank", "wide", {"rank": 3}),
    "low_rank.square.cayley": ("low_rank", "square", {"rank": 4, "triv": "cayley"}),
    "low_rank.conv": ("low_rank", "conv", {"rank": 1}),
    "fixed_rank.tall": ("fixed_rank", "tall", {"rank": 3}),
    "fixed_rank.wide.pair": ("fixed_rank", "wide", {"rank": 3, "f": "exp_log_pair"}),
    "fixed_rank.square.cayley": ("fixed_rank", "square", {"rank": 4, "triv": "cayley"}),
    "invertible.square": ("invertible", "square", {}),
    "invertible.square.cayley": ("invertible", "square", {"triv": "cayley"}),
    "invertible.conv": ("invertible", "conv", {}),
    "sln.square": ("sln", "square", {}),
    "sln.square.pair": ("sln", "square", {"f": "exp_log_pair"}),
    "sln.conv": ("sln", "conv", {}),
    "positive_definite.square": ("positive_definite", "square", {}),
    "positive_definite.square.cayley": ("positive_definite", "square", {"triv": "cayley"}),
    "positive_definite.square.pair": ("positive_definite", "square", {"f": "exp_log_pair"}),
    "positive_definite.conv": ("positive_definite", "conv", {}),
    "positive_semidefinite.square": ("positive_semidefinite", "square", {}),
    "positive_semidefinite.square.cayley": ("positive_semidefinite", "square", {"triv": "cayley"}),
    "positive_semidefinite_low_rank.square": ("positive_semidefinite_low_rank", "square", {"rank": 3}),
    "positive_semidefinite_fixed_rank.square": ("positive_semidefinite_fixed_rank", "square", {"rank": 3}),
    "positive_semidefinite_fixed_rank.square.cayley": ("positive_semidefinite_fixed_rank", "square",
                                                       {"rank": 3, "triv": "cayley"}),
    "alpha_stable.square": ("alpha_stable", "square", {}),
    "alpha_stable.square.alpha": ("alpha_stable", "square", {"alpha": 0.5}),
}

MODELS = ("model.readme", "model.exprnn", "model.exprnn.cached", "model.exprnn.cayley",
          "train_step.orthogonal_mlp", "train_step.low_rank_regression", "train_step.positive_definite_quadratic",
          "train_step.exprnn")

# update_base name -> a layer of ``LAYERS`` whose weight is assigned back after the forward.
UPDATE_BASE: dict[str, str] = {
    "update_base.orthogonal": "orthogonal.square",
    "update_base.orthogonal.tall": "orthogonal.tall",
    "update_base.grassmannian": "grassmannian.tall",
    "update_base.sphere": "sphere.bias",
    "update_base.low_rank": "low_rank.tall",
    "update_base.fixed_rank": "fixed_rank.tall",
    "update_base.almost_orthogonal": "almost_orthogonal.square",
    "update_base.invertible": "invertible.square",
    "update_base.sln": "sln.square",
    "update_base.positive_definite": "positive_definite.square",
    "update_base.positive_semidefinite_low_rank": "positive_semidefinite_low_rank.square",
}

# Manifold model name -> (class of ``geotorch``, size, constructor arguments after the size, method group,
# call keywords). Method groups: "sample" (``M.sample(**call)``) and "check" (``in_manifold`` and
# ``right_inverse`` of a point sampled eagerly).
MANIFOLDS: dict[str, tuple[str, tuple[int, ...], tuple[Any, ...], str, dict[str, Any]]] = {
    "SO.sample": ("SO", (N, N), (), "sample", {}),
    "SO.sample.torus": ("SO", (3, N, N), (), "sample", {"distribution": "torus"}),
    "SO.check": ("SO", (N, N), (), "check", {}),
    "Stiefel.sample.torus": ("Stiefel", (12, N), (), "sample", {"distribution": "torus"}),
    "Stiefel.sample.wide": ("Stiefel", (N, 12), (), "sample", {}),
    "Stiefel.check": ("Stiefel", (12, N), (), "check", {}),
    "Stiefel.check.wide": ("Stiefel", (N, 12), ("cayley",), "check", {}),
    "Grassmannian.check": ("Grassmannian", (12, N), (), "check", {}),
    "Sphere.sample": ("Sphere", (3, N), (), "sample", {}),
    "Sphere.check": ("Sphere", (3, N), (), "check", {}),
    "SphereEmbedded.sample": ("SphereEmbedded", (3, N), (2.0,), "sample", {}),
    "SphereEmbedded.check": ("SphereEmbedded", (3, N), (2.0,), "check", {}),
    "Skew.sample": ("Skew", (N, N), (), "sample", {}),
    "Skew.sample.upper": ("Skew", (N, N), (), "sample", {"lower": False}),
    "Skew.check": ("Skew", (N, N), (False,), "check", {}),
    "Symmetric.check": ("Symmetric", (N, N), (), "check", {}),
    "Rn.check": ("Rn", (3, N), (), "check", {}),
    "LowRank.sample": ("LowRank", (12, N), (3,), "sample", {}),
    "LowRank.sample.factorized": ("LowRank", (N, 12), (3,), "sample", {"factorized": True}),
    "LowRank.check": ("LowRank", (12, N), (3,), "check", {}),
    "FixedRank.sample": ("FixedRank", (12, N), (3,), "sample", {}),
    "FixedRank.check": ("FixedRank", (N, 12), (3,), "check", {}),
    "AlmostOrthogonal.sample": ("AlmostOrthogonal", (N, N), (0.5,), "sample", {}),
    "AlmostOrthogonal.check": ("AlmostOrthogonal", (12, N), (0.5, "tanh"), "check", {}),
    "GLp.sample": ("GLp", (N, N), (), "sample", {}),
    "GLp.check": ("GLp", (N, N), (), "check", {}),
    "SL.sample": ("SL", (N, N), (), "sample", {}),
    "SL.check": ("SL", (N, N), (), "check", {}),
    "PSD.sample": ("PSD", (N, N), (), "sample", {}),
    "PSD.check": ("PSD", (N, N), (), "check", {}),
    "PSSD.check": ("PSSD", (N, N), (), "check", {}),
    "PSSDLowRank.sample.factorized": ("PSSDLowRank", (N, N), (3,), "sample", {"factorized": True}),
    "PSSDLowRank.check": ("PSSDLowRank", (N, N), (3,), "check", {}),
    "PSSDFixedRank.sample": ("PSSDFixedRank", (N, N), (3,), "sample", {}),
    "PSSDFixedRank.check": ("PSSDFixedRank", (N, N), (3,), "check", {}),
    "Hurwitz.sample": ("Hurwitz", (N, N), (0.5,), "sample", {}),
    "Hurwitz.check": ("Hurwitz", (N, N), (0.5,), "check", {}),
}
INITS = ("init.uniform_init_", "init.torus_init_", "init.uniform_init_sphere_")


def names() -> list[str]:
    return ([f"layer.{n}" for n in LAYERS] + list(MODELS) + list(UPDATE_BASE)
            + [f"manifold.{n}" for n in MANIFOLDS] + list(INITS))


def _keywords(keywords: dict[str, Any]) -> dict[str, Any]:
    """The constraint's keywords with the callables that stand in the table built."""
    import torch

    callables: dict[str, Any] = {
        "expm_callable": torch.linalg.matrix_exp,
        "tanh_atanh_pair": (torch.tanh, torch.atanh),
        "exp_log_pair": (torch.exp, torch.log),
    }
    return {k: callables.get(v, v) if isinstance(v, str) else v for k, v in keywords.items()}


def _layer(name: str) -> tuple[Any, Any, str]:
    """A fresh layer of ``LAYERS[name]`` with its constraint, its input, and the constrained tensor's name."""
    import geotorch
    import torch
    from torch import nn

    constraint, kind, keywords = LAYERS[name]
    gen = torch.Generator().manual_seed(1)
    if kind == "conv":
        layer: nn.Module = nn.Conv2d(4, 8, 3)
        x = torch.randn(BATCH, 4, 8, 8, generator=gen)
    else:
        fan_in, fan_out = {"square": (N, N), "bias": (N, N), "tall": (N, 12), "wide": (12, N)}[kind]
        layer = nn.Linear(fan_in, fan_out)
        x = torch.randn(BATCH, fan_in, generator=gen)
    tensor = "bias" if kind == "bias" else "weight"
    getattr(geotorch, constraint)(layer, tensor, **_keywords(keywords))
    return layer, x, tensor


def _parametrizations(layer: Any) -> list[Any]:
    """The manifold classes registered on ``layer`` (what reading its weight enters)."""
    return [type(p) for plist in layer.parametrizations.values() for p in plist]


def _layer_model(name: str) -> Built:
    from torch import nn

    layer, x, _ = _layer(name)

    class Constrained(nn.Module):
        """A constrained layer called on a batch: reading its weight runs the manifold's ``forward``."""

        def __init__(self) -> None:
            super().__init__()
            self.layer = layer

        def forward(self, x: Any) -> Any:
            return self.layer(x)

        def entry_points(self) -> list[Any]:
            return _parametrizations(self.layer)

    return Constrained(), (x,), {}


def _update_base(name: str) -> Built:
    import geotorch
    from torch import nn

    layer, x, tensor = _layer(UPDATE_BASE[name])

    class UpdateBase(nn.Module):
        """The layer's forward, then ``geotorch.update_base``: the weight is assigned back through the
        manifold's ``right_inverse`` (as Riemannian gradient descent does between steps)."""

        def __init__(self) -> None:
            super().__init__()
            self.layer = layer

        def forward(self, x: Any) -> Any:
            y = self.layer(x)
            geotorch.update_base(self.layer, tensor)
            return y

        def entry_points(self) -> list[Any]:
            return [geotorch.update_base] + _parametrizations(self.layer)

    return UpdateBase(), (x,), {}


def _exprnn(triv: str = "expm") -> Any:
    """The copying problem's ExpRNN cell: an orthogonal recurrent kernel initialised with the torus sampler."""
    import geotorch
    import torch
    from torch import nn

    class Modrelu(nn.Module):
        def __init__(self, features: int) -> None:
            super().__init__()
            self.b = nn.Parameter(torch.empty(features).uniform_(-0.01, 0.01))

        def forward(self, inputs: torch.Tensor) -> torch.Tensor:
            norm = torch.abs(inputs)
            biased_norm = norm + self.b
            magnitude = nn.functional.relu(biased_norm)
            phase = torch.sign(inputs)
            return phase * magnitude

    class ExpRNNCell(nn.Module):
        def __init__(self, input_size: int, hidden_size: int) -> None:
            super().__init__()
            self.hidden_size = hidden_size
            self.recurrent_kernel = nn.Linear(hidden_size, hidden_size, bias=False)
            self.input_kernel = nn.Linear(input_size, hidden_size)
            self.nonlinearity = Modrelu(hidden_size)
            geotorch.orthogonal(self.recurrent_kernel, "weight", triv=triv)
            nn.init.kaiming_normal_(self.input_kernel.weight.data, nonlinearity="relu")
            # The torus initialisation of the examples: a sample assigned through ``right_inverse``.
            manifold: Any = getattr(self.recurrent_kernel, "parametrizations").weight[0]
            self.recurrent_kernel.weight = manifold.sample("torus")

        def forward(self, inputs: torch.Tensor, hidden: torch.Tensor) -> torch.Tensor:
            return self.nonlinearity(self.input_kernel(inputs) + self.recurrent_kernel(hidden))

    return ExpRNNCell(4, N)


def _model(name: str) -> Built:
    import geotorch
    import torch
    import torch.nn.functional as F
    from geotorch.psd import PSD
    from geotorch.stiefel import Stiefel
    from torch import nn
    from torch.nn.utils import parametrize

    gen = torch.Generator().manual_seed(2)
    if name == "model.readme":
        class Model(nn.Module):
            """The README's model: kernels of rank 1 in a ``Conv2d``, orthonormal columns in a ``Linear``."""

            def __init__(self) -> None:
                super().__init__()
                self.cnn = nn.Conv2d(4, 8, 3)
                geotorch.low_rank(self.cnn, "weight", rank=1)
                self.linear = nn.Linear(8, 12)
                geotorch.orthogonal(self.linear, "weight")
                self.linear.weight = torch.eye(12, 8)

            def forward(self, x: torch.Tensor) -> torch.Tensor:
                return self.linear(self.cnn(x).mean(dim=(-2, -1)))

            def entry_points(self) -> list[Any]:
                return _parametrizations(self.cnn) + _parametrizations(self.linear)

        return Model(), (torch.randn(BATCH, 4, 8, 8, generator=gen),), {}

    if name.startswith("model.exprnn") or name == "train_step.exprnn":
        cell = _exprnn("cayley" if name.endswith("cayley") else "expm")
        cached = name.endswith("cached") or name == "train_step.exprnn"
        train = name.startswith("train_step")

        class RNN(nn.Module):
            """The ExpRNN cell unrolled over the sequence (under ``parametrize.cached()`` when ``cached``), a
            readout of the last state, and for a train step the cross-entropy of the class."""

            def __init__(self) -> None:
                super().__init__()
                self.cell = cell
                self.readout = nn.Linear(N, 5)

            def unroll(self, xs: torch.Tensor) -> torch.Tensor:
                hidden = xs.new_zeros(xs.size(0), N)
                for t in range(xs.size(1)):
                    hidden = self.cell(xs[:, t], hidden)
                return self.readout(hidden)

            def forward(self, xs: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
                if cached:
                    with parametrize.cached():
                        logits = self.unroll(xs)
                else:
                    logits = self.unroll(xs)
                return F.cross_entropy(logits, labels) if train else logits

            def entry_points(self) -> list[Any]:
                return [Stiefel]

        xs = torch.randn(BATCH, 6, 4, generator=gen)
        return RNN(), (xs, torch.randint(0, 5, (BATCH,), generator=gen)), {}

    if name == "train_step.orthogonal_mlp":
        class OrthogonalMLP(nn.Module):
            """An MLP with orthogonal (square and tall) weights and a sphere-constrained bias: cross-entropy."""

            def __init__(self) -> None:
                super().__init__()
                self.l1 = nn.Linear(N, 12)
                self.l2 = nn.Linear(12, 12)
                self.l3 = nn.Linear(12, 5)
                geotorch.orthogonal(self.l1, "weight")
                geotorch.orthogonal(self.l2, "weight", triv="cayley")
                geotorch.sphere(self.l2, "bias")
                geotorch.grassmannian(self.l3, "weight")

            def forward(self, x: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
                h = torch.relu(self.l1(x))
                h = torch.relu(self.l2(h))
                return F.cross_entropy(self.l3(h), labels)

            def entry_points(self) -> list[Any]:
                return [c for layer in (self.l1, self.l2, self.l3) for c in _parametrizations(layer)]

        x = torch.randn(BATCH, N, generator=gen)
        return OrthogonalMLP(), (x, torch.randint(0, 5, (BATCH,), generator=gen)), {}

    if name == "train_step.low_rank_regression":
        class LowRankRegression(nn.Module):
            """A low-rank then a fixed-rank layer, mean squared error against a target."""

            def __init__(self) -> None:
                super().__init__()
                self.l1 = nn.Linear(N, 12)
                self.l2 = nn.Linear(12, N)
                geotorch.low_rank(self.l1, "weight", rank=3)
                geotorch.fixed_rank(self.l2, "weight", rank=2)

            def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
                return F.mse_loss(self.l2(torch.tanh(self.l1(x))), y)

            def entry_points(self) -> list[Any]:
                return _parametrizations(self.l1) + _parametrizations(self.l2)

        return LowRankRegression(), (torch.randn(BATCH, N, generator=gen), torch.randn(BATCH, N, generator=gen)), {}

    # train_step.positive_definite_quadratic
    class Quadratic(nn.Module):
        """A positive-definite metric learnt for a Mahalanobis distance: the mean of x^T A x over the batch,
        plus the log-determinant of A read from the same parametrized weight (under ``parametrize.cached``)."""

        def __init__(self) -> None:
            super().__init__()
            self.metric = nn.Linear(N, N, bias=False)
            geotorch.positive_definite(self.metric, "weight")

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            with parametrize.cached():
                a = self.metric.weight
                quad = torch.einsum("bi,ij,bj->b", x, a, x).mean()
                return quad - torch.logdet(a)

        def entry_points(self) -> list[Any]:
            return [PSD]

    return Quadratic(), (torch.randn(BATCH, N, generator=gen),), {}


def _manifold(name: str) -> Built:
    import geotorch
    import torch

    from gt_calls import Run

    cls_name, size, extra, group, call = MANIFOLDS[name]
    cls = getattr(geotorch, cls_name)
    torch.manual_seed(3)
    if cls_name == "Symmetric":
        manifold = cls(*extra)
        a = torch.randn(*size)
        point = a + a.mT
    else:
        manifold = cls(torch.Size(size), *extra)
        point = None
    if group == "sample":
        def sample(owner: Any, x: Any) -> Any:
            return owner.sample(**call), x
        return Run(manifold, sample, [cls.sample]), (torch.zeros(1),), {}
    if point is None:
        if cls_name == "Rn":
            point = torch.randn(*size)
        else:
            with torch.no_grad():
                point = manifold.sample()

    # ``Hurwitz`` checks its points with ``in_manifold_eigen``; ``Symmetric`` has no ``right_inverse``.
    check_name = "in_manifold" if hasattr(cls, "in_manifold") else "in_manifold_eigen"

    def check(owner: Any, x: Any) -> Any:
        inside = getattr(owner, check_name)(x)
        if hasattr(owner, "right_inverse"):
            return inside, owner.right_inverse(x)
        return inside

    entries = [getattr(cls, check_name)] + ([cls.right_inverse] if hasattr(cls, "right_inverse") else [])
    return Run(manifold, check, entries), (point,), {}


def _init(name: str) -> Built:
    import torch
    from geotorch.so import torus_init_, uniform_init_
    from geotorch.sphere import uniform_init_sphere_

    from gt_calls import Call

    if name == "init.uniform_init_":
        return Call(uniform_init_), (torch.empty(3, N, N),), {}
    if name == "init.torus_init_":
        return Call(torus_init_), (torch.empty(N, N),), {}
    return Call(uniform_init_sphere_, r=2.0), (torch.empty(3, N),), {}


def build(name: str) -> Built:
    import torch

    torch.manual_seed(0)
    if name.startswith("layer."):
        return _layer_model(name.removeprefix("layer."))
    if name in UPDATE_BASE:
        return _update_base(name)
    if name.startswith("manifold."):
        return _manifold(name.removeprefix("manifold."))
    if name in INITS:
        return _init(name)
    return _model(name)
