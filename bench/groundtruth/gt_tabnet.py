"""Ground-truth bench, pytorch_tabnet: the TabNet networks, their estimators' training and predict steps, and parts.

pytorch_tabnet has two layers. ``pytorch_tabnet.tab_network`` holds the networks, plain ``nn.Module``s
that users compile or reuse: ``NETWORKS`` builds each (``TabNet``, ``TabNetNoEmbeddings``,
``TabNetPretraining``, ``TabNetEncoder`` with ``TabNetDecoder``) at tiny sizes in the configurations
that change its code (sparsemax or entmax attention, categorical embeddings, grouped features, a
multi-task head, ghost batches smaller than the batch) and compiles its ``forward``, or
``forward_masks`` (the explanation path). The scikit-learn estimators (``TabNetClassifier``,
``TabNetRegressor``, ``TabNetMultiTaskClassifier``, ``TabNetPretrainer``) train the network in
``_train_batch``; each of ``ESTIMATORS`` is fitted for one epoch on a small random table (as their
tutorials fit them) and then compiled two ways:

- ``<Estimator>.train_step``: bench code (``_TrainStep``) running what ``_train_batch`` runs before the
  backward pass: the estimator's augmentation if it has one, the network, ``compute_loss`` and the
  sparsity term (the pretrainer's loss is ``UnsupervisedLoss``);
- ``<Estimator>.predict_step``: the estimator's own ``_predict_batch`` (``Method``), what validation
  calls on each batch, with the network in eval mode as there.

``PARTS`` are the pieces users take on their own: ``Sparsemax``, ``Entmax15``, the ``entmoid15``
function, ghost batch normalisation (``GBN``), ``EmbeddingGenerator``, ``RandomObfuscator``,
``AttentiveTransformer``, ``FeatTransformer``, ``UnsupervisedLoss`` and the two SMOTE augmentations.
Inputs are 16 rows of 6 features (columns 0 and 1 categorical, with 3 and 4 levels); random weights,
nothing downloaded. ``names()`` needs no torch; ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
ROWS, FEATURES, CLASSES = 16, 6, 3
CAT_IDXS, CAT_DIMS = [0, 1], [3, 4]  # the categorical columns and their number of levels
SMALL = {"n_d": 4, "n_a": 4, "n_steps": 2}
CATEGORICAL = {"cat_idxs": CAT_IDXS, "cat_dims": CAT_DIMS, "cat_emb_dim": [2, 3]}  # an embedding size per column
GROUPS = [[2, 3], [4, 5]]  # features attended together

# Network name -> (class of ``tab_network``, keywords, method). Keywords ``groups`` (a list of feature
# groups, turned into the group matrix as the estimators do) and ``output_dim`` are filled by ``_network``.
NETWORKS: dict[str, tuple[str, dict[str, Any], str]] = {
    "TabNet": ("TabNet", {**SMALL, "output_dim": 1}, "forward"),
    "TabNet.classifier": ("TabNet", {**SMALL, "output_dim": CLASSES}, "forward"),
    "TabNet.entmax": ("TabNet", {**SMALL, "output_dim": 1, "mask_type": "entmax"}, "forward"),
    "TabNet.categorical": ("TabNet", {**SMALL, **CATEGORICAL, "output_dim": CLASSES}, "forward"),
    "TabNet.grouped": ("TabNet", {**SMALL, "output_dim": 1, "groups": GROUPS}, "forward"),
    "TabNet.categorical_grouped": ("TabNet", {**SMALL, **CATEGORICAL, "output_dim": 1, "groups": GROUPS},
                                   "forward"),
    "TabNet.multitask": ("TabNet", {**SMALL, "output_dim": [2, CLASSES]}, "forward"),
    "TabNet.ghost_batches": ("TabNet", {**SMALL, "output_dim": 1, "virtual_batch_size": 4}, "forward"),
    "TabNet.shared_only": ("TabNet", {**SMALL, "output_dim": 1, "n_independent": 0, "n_shared": 2}, "forward"),
    "TabNet.independent_only": ("TabNet", {**SMALL, "output_dim": 1, "n_independent": 2, "n_shared": 0},
                                "forward"),
    "TabNet.forward_masks": ("TabNet", {**SMALL, **CATEGORICAL, "output_dim": 1}, "forward_masks"),
    "TabNetNoEmbeddings": ("TabNetNoEmbeddings", {**SMALL, "output_dim": 1}, "forward"),
    "TabNetNoEmbeddings.forward_masks": ("TabNetNoEmbeddings", {**SMALL, "output_dim": 1}, "forward_masks"),
    "TabNetPretraining": ("TabNetPretraining", {**SMALL}, "forward"),
    "TabNetPretraining.categorical_grouped": ("TabNetPretraining", {**SMALL, **CATEGORICAL, "groups": GROUPS},
                                              "forward"),
    "TabNetPretraining.entmax": ("TabNetPretraining", {**SMALL, "mask_type": "entmax"}, "forward"),
    "TabNetPretraining.forward_masks": ("TabNetPretraining", {**SMALL}, "forward_masks"),
    "TabNetEncoder.TabNetDecoder": ("TabNetEncoder", {**SMALL, "output_dim": FEATURES}, "forward"),
}
# Estimator name -> (class, constructor keywords, ``fit`` keywords). ``augmentations`` names a class of
# ``pytorch_tabnet.augmentations`` (the table is plain data).
FIT = {"max_epochs": 1, "batch_size": ROWS, "virtual_batch_size": 8, "drop_last": False}
ESTIMATORS: dict[str, tuple[str, dict[str, Any], dict[str, Any]]] = {
    "TabNetClassifier": ("TabNetClassifier", {**SMALL}, FIT),
    "TabNetClassifier.categorical": ("TabNetClassifier", {**SMALL, **CATEGORICAL}, FIT),
    "TabNetClassifier.entmax_grouped": ("TabNetClassifier", {**SMALL, "mask_type": "entmax",
                                                             "grouped_features": GROUPS}, FIT),
    "TabNetClassifier.smote": ("TabNetClassifier", {**SMALL}, {**FIT, "augmentations": "ClassificationSMOTE"}),
    "TabNetRegressor": ("TabNetRegressor", {**SMALL}, FIT),
    "TabNetRegressor.smote": ("TabNetRegressor", {**SMALL}, {**FIT, "augmentations": "RegressionSMOTE"}),
    "TabNetMultiTaskClassifier": ("TabNetMultiTaskClassifier", {**SMALL}, FIT),
    "TabNetPretrainer": ("TabNetPretrainer", {**SMALL, **CATEGORICAL}, FIT),
}
PARTS = ("Sparsemax", "Entmax15", "entmoid15", "GBN", "EmbeddingGenerator", "RandomObfuscator",
         "AttentiveTransformer", "FeatTransformer", "UnsupervisedLoss", "RegressionSMOTE", "ClassificationSMOTE")


def names() -> list[str]:
    estimators = [f"{e}.{step}" for e in ESTIMATORS for step in ("train_step", "predict_step")]
    return list(NETWORKS) + estimators + [f"part.{p}" for p in PARTS]


def table(categorical: bool = True) -> Any:
    """``ROWS`` rows of ``FEATURES`` columns: two categorical columns of level indices, then reals."""
    import torch

    gen = torch.Generator().manual_seed(1)
    x = torch.randn(ROWS, FEATURES, generator=gen)
    if categorical:
        for column, levels in zip(CAT_IDXS, CAT_DIMS):
            x[:, column] = torch.arange(ROWS) % levels
    return x


def _network(name: str) -> Built:
    import torch
    from pytorch_tabnet import tab_network
    from pytorch_tabnet.utils import create_group_matrix
    from torch import nn

    from gt_calls import Method

    cls, keywords, method = NETWORKS[name]
    keywords = dict(keywords)
    keywords.setdefault("virtual_batch_size", 8)
    group_matrix = create_group_matrix(keywords.pop("groups", []), FEATURES)
    x = table()
    if cls == "TabNetEncoder":  # the encoder's steps decoded back to the features, as pretraining does

        class EncoderDecoder(nn.Module):
            """``TabNetEncoder`` then ``TabNetDecoder``: the two halves that ``TabNetPretraining`` joins."""

            def __init__(self) -> None:
                super().__init__()
                self.encoder = tab_network.TabNetEncoder(FEATURES, group_attention_matrix=group_matrix, **keywords)
                self.decoder = tab_network.TabNetDecoder(FEATURES, n_d=keywords["n_d"], n_steps=keywords["n_steps"],
                                                         virtual_batch_size=keywords["virtual_batch_size"])

            def forward(self, x: torch.Tensor) -> Any:
                steps, m_loss = self.encoder(x)
                return self.decoder(steps), m_loss

            def entry_points(self) -> list[Any]:
                return [tab_network.TabNetEncoder, tab_network.TabNetDecoder]

        return EncoderDecoder(), (x,), {}
    network = getattr(tab_network, cls)(FEATURES, group_attention_matrix=group_matrix, **keywords)
    if method == "forward":
        return network, (x,), {}
    return Method(network, method), (x,), {}


def _estimator(name: str) -> Any:
    """``ESTIMATORS[name]`` fitted for one epoch on a random table, so its network, loss and
    augmentation are what ``fit`` sets up."""
    import numpy as np
    from pytorch_tabnet import augmentations
    from pytorch_tabnet.multitask import TabNetMultiTaskClassifier
    from pytorch_tabnet.pretraining import TabNetPretrainer
    from pytorch_tabnet.tab_model import TabNetClassifier, TabNetRegressor

    cls, keywords, fit = ESTIMATORS[name]
    estimator = {"TabNetClassifier": TabNetClassifier, "TabNetRegressor": TabNetRegressor,
                 "TabNetMultiTaskClassifier": TabNetMultiTaskClassifier,
                 "TabNetPretrainer": TabNetPretrainer}[cls](**keywords, verbose=0, seed=0, device_name="cpu")
    fit = dict(fit)
    if "augmentations" in fit:
        fit["augmentations"] = getattr(augmentations, fit["augmentations"])(device_name="cpu", seed=0)
    x = table().numpy()
    rng = np.random.default_rng(0)
    targets = {"TabNetClassifier": rng.integers(0, CLASSES, ROWS),
               "TabNetRegressor": rng.normal(size=(ROWS, 1)),
               "TabNetMultiTaskClassifier": np.stack([rng.integers(0, 2, ROWS), rng.integers(0, CLASSES, ROWS)], 1)}
    if cls == "TabNetPretrainer":
        estimator.fit(x, pretraining_ratio=0.5, **fit)
    else:
        estimator.fit(x, targets[cls], **fit)
    return estimator


def _estimator_step(name: str, step: str) -> Built:
    import torch
    from torch import nn

    from gt_calls import Method

    estimator = _estimator(name)
    x = table()
    if step == "predict_step":

        class _Predict(Method):
            """The estimator's ``_predict_batch``. Its network is registered here so that it counts as this
            module's, and stays in eval mode, as ``predict`` and validation put it, whichever mode the
            harness asks for (gradients still follow the mode)."""

            def __init__(self) -> None:
                super().__init__(estimator, "_predict_batch")
                self.network = estimator.network

            def train(self, mode: bool = True) -> Any:
                super().train(mode)
                self.network.eval()
                return self

        return _Predict(), (x,), {}
    cls = ESTIMATORS[name][0]
    gen = torch.Generator().manual_seed(2)
    y = {"TabNetClassifier": torch.randint(0, CLASSES, (ROWS,), generator=gen).float(),
         "TabNetRegressor": torch.randn(ROWS, 1, generator=gen),
         "TabNetMultiTaskClassifier": torch.stack([torch.randint(0, 2, (ROWS,), generator=gen),
                                                   torch.randint(0, CLASSES, (ROWS,), generator=gen)], 1).float(),
         }.get(cls)

    class _TrainStep(nn.Module):
        """``_train_batch`` up to the backward pass: augmentation, network, loss and sparsity term."""

        def __init__(self) -> None:
            super().__init__()
            self.network = estimator.network

        def forward(self, x: torch.Tensor, y: torch.Tensor | None = None) -> Any:
            if y is None:  # the pretrainer reconstructs obfuscated features
                output, embedded_x, obf_vars = self.network(x)
                return estimator.compute_loss(output, embedded_x, obf_vars)
            if estimator.augmentations is not None:
                x, y = estimator.augmentations(x.clone(), y.clone())
            output, m_loss = self.network(x)
            return estimator.compute_loss(output, y) - estimator.lambda_sparse * m_loss

        def entry_points(self) -> list[Any]:
            entered = [type(self.network), type(estimator).compute_loss]
            return entered + ([type(estimator.augmentations).__call__] if estimator.augmentations else [])

    return _TrainStep(), (x,) if y is None else (x, y), {}


def _part(name: str) -> Built:
    import torch
    from pytorch_tabnet import augmentations, sparsemax, tab_network
    from pytorch_tabnet.metrics import UnsupervisedLoss
    from pytorch_tabnet.utils import create_group_matrix
    from torch import nn

    from gt_calls import Call

    gen = torch.Generator().manual_seed(3)
    z = torch.randn(ROWS, FEATURES, generator=gen)
    groups = create_group_matrix(GROUPS, FEATURES)
    if name in ("Sparsemax", "Entmax15"):
        return getattr(sparsemax, name)(dim=-1), (z,), {}
    if name == "entmoid15":
        return Call(sparsemax.entmoid15), (z,), {}
    if name == "GBN":
        return tab_network.GBN(FEATURES, virtual_batch_size=4), (z,), {}
    if name == "EmbeddingGenerator":
        return tab_network.EmbeddingGenerator(FEATURES, CAT_DIMS, CAT_IDXS, [2, 3], groups), (table(),), {}
    if name == "RandomObfuscator":
        return tab_network.RandomObfuscator(0.3, groups), (z,), {}
    if name == "AttentiveTransformer":
        attention = tab_network.AttentiveTransformer(4, groups.shape[0], groups, virtual_batch_size=8)
        return attention, (torch.ones(ROWS, groups.shape[0]), torch.randn(ROWS, 4, generator=gen)), {}
    if name == "FeatTransformer":
        shared = nn.ModuleList([nn.Linear(FEATURES, 16, bias=False), nn.Linear(8, 16, bias=False)])
        return tab_network.FeatTransformer(FEATURES, 8, shared, n_glu_independent=2, virtual_batch_size=8), (z,), {}
    if name == "UnsupervisedLoss":
        obfuscated = (torch.rand(ROWS, FEATURES, generator=gen) < 0.3).float()
        return Call(UnsupervisedLoss), (torch.randn(ROWS, FEATURES, generator=gen), z, obfuscated), {}
    # the SMOTE augmentations mix a batch with itself in place, as ``_train_batch`` applies them
    smote = getattr(augmentations, name)(device_name="cpu", seed=0)
    y = (torch.randint(0, CLASSES, (ROWS,), generator=gen).float() if name == "ClassificationSMOTE"
         else torch.randn(ROWS, 1, generator=gen))

    class Augment(nn.Module):
        """One SMOTE augmentation of a batch (on copies: the augmentation writes into its inputs)."""

        def forward(self, x: torch.Tensor, y: torch.Tensor) -> Any:
            return smote(x.clone(), y.clone())

        def entry_points(self) -> list[Any]:
            return [type(smote).__call__]

    return Augment(), (z, y), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")  # the estimators' notes on devices and unused arguments
    torch.manual_seed(0)
    if name.startswith("part."):
        return _part(name.split(".", 1)[1])
    if name in NETWORKS:
        return _network(name)
    estimator, step = name.rsplit(".", 1)
    return _estimator_step(estimator, step)
