"""Ground-truth bench, entmax: its sparse activations, their modules and losses, and attention built on them.

entmax 1.3 offers sparse alternatives to softmax and to the cross-entropy loss, used where softmax is
(``p = entmax15(scores, dim=-1)``, ``loss = Entmax15Loss()(logits, target)``). So:

- ``FUNCTIONAL``: each activation function entmax exports (``sparsemax``, ``entmax15`` by sorting,
  ``entmax_bisect``, ``sparsemax_bisect``, ``normmax_bisect``, ``budget_bisect`` by bisection), compiled
  through ``gt_calls.Call`` on a batch of scores, at its defaults and, after a dot, with the options that
  take other code paths: another ``dim`` of a 3-D input, the partial sort ``k=`` (whose fallback sorts
  again on the rows it did not solve), other ``alpha`` values and a tensor of one alpha per row, fewer
  bisection steps, ``ensure_sum_one=False``;
- ``MODULES``: the module forms (``Sparsemax``, ``Entmax15``, ``SparsemaxBisect``, ``EntmaxBisect``,
  ``NormmaxBisect``, ``BudgetBisect``) compiled whole, and ``EntmaxAlpha``: a bench module holding a
  learned alpha (an ``nn.Parameter``, one per row or one in all) passed to ``entmax_bisect``, as entmax's
  README trains alpha;
- ``LOSSES``: each loss module (``SparsemaxLoss``, ``Entmax15Loss``, ``SparsemaxBisectLoss``,
  ``EntmaxBisectLoss``, ``NormmaxBisectLoss``) and loss function, on the logits of a small linear
  classifier (``Classifier``, bench code: the training step users compile), with its reductions,
  ``ignore_index`` and ``k``;
- ``ATTENTION``: a small multi-head self-attention block (bench code) whose attention weights are
  ``entmax15``, ``sparsemax`` or ``entmax_bisect`` with a learned alpha per head (the adaptively sparse
  transformer) in place of softmax.

Scores are 4 rows of 10 (``(3, 4, 5)`` for the ``dim`` variants), the classifier sees 4 rows of 8
features and 10 classes, the attention block a batch of 2 sequences of 6 tokens of width 8. Random
weights, nothing downloaded. Tables are plain data, so ``names()`` needs no torch; ``build`` runs in a
worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
ROWS, CLASSES, FEATURES = 4, 10, 8
BATCH, TOKENS, WIDTH, HEADS = 2, 6, 8, 2

# Function name (variant after a dot) -> (input kind, fixed keywords). Input kinds: "rows" (4, 10) scores,
# "cube" (3, 4, 5) scores; "alpha_rows" in the keywords stands for a (4, 1) tensor of alphas, one per row.
FUNCTIONAL: dict[str, tuple[str, dict[str, Any]]] = {
    "sparsemax": ("rows", {}),
    "sparsemax.dim0": ("cube", {"dim": 0}),
    "sparsemax.dim1": ("cube", {"dim": 1}),
    "sparsemax.k": ("rows", {"k": 3}),
    "sparsemax.k_dim1": ("cube", {"dim": 1, "k": 2}),
    "entmax15": ("rows", {}),
    "entmax15.dim0": ("cube", {"dim": 0}),
    "entmax15.dim1": ("cube", {"dim": 1}),
    "entmax15.k": ("rows", {"k": 3}),
    "entmax15.k_dim1": ("cube", {"dim": 1, "k": 2}),
    "entmax_bisect": ("rows", {}),
    "entmax_bisect.alpha1_25": ("rows", {"alpha": 1.25}),
    "entmax_bisect.alpha2": ("rows", {"alpha": 2.0}),
    "entmax_bisect.alpha_tensor": ("rows", {"alpha": "alpha_rows"}),
    "entmax_bisect.n_iter": ("rows", {"alpha": 1.75, "n_iter": 10}),
    "entmax_bisect.dim1": ("cube", {"dim": 1, "n_iter": 20}),
    "entmax_bisect.no_ensure_sum_one": ("rows", {"n_iter": 20, "ensure_sum_one": False}),
    "sparsemax_bisect": ("rows", {}),
    "normmax_bisect": ("rows", {}),
    "normmax_bisect.alpha3": ("rows", {"alpha": 3.0, "n_iter": 20}),
    "budget_bisect": ("rows", {}),
    "budget_bisect.budget3": ("rows", {"budget": 3, "n_iter": 20}),
}

# Module name (variant after a dot) -> (input kind, constructor keywords; for the bench's ``EntmaxAlpha``,
# whether it learns one alpha per row).
MODULES: dict[str, tuple[str, dict[str, Any]]] = {
    "Sparsemax": ("rows", {}),
    "Sparsemax.k": ("rows", {"k": 3}),
    "Sparsemax.dim0": ("cube", {"dim": 0}),
    "Entmax15": ("rows", {}),
    "Entmax15.k": ("rows", {"k": 3}),
    "Entmax15.dim1": ("cube", {"dim": 1}),
    "SparsemaxBisect": ("rows", {"n_iter": 30}),
    "EntmaxBisect": ("rows", {}),
    "EntmaxBisect.alpha_tensor": ("rows", {"alpha": "alpha_rows", "n_iter": 30}),
    "NormmaxBisect": ("rows", {"n_iter": 30}),
    "BudgetBisect": ("rows", {"budget": 3, "n_iter": 30}),
    "EntmaxAlpha": ("rows", {"per_row": False}),
    "EntmaxAlpha.per_row": ("rows", {"per_row": True}),
}

# Loss name (variant after a dot) -> keywords. A CamelCase name is a loss module of ``entmax`` built with
# the keywords; a lower-case one is a loss function, called with them and summed.
LOSSES: dict[str, dict[str, Any]] = {
    "SparsemaxLoss": {},
    "SparsemaxLoss.sum": {"reduction": "sum"},
    "SparsemaxLoss.none": {"reduction": "none"},
    "SparsemaxLoss.ignore_index": {"ignore_index": 0},
    "SparsemaxLoss.k": {"k": 3},
    "Entmax15Loss": {},
    "Entmax15Loss.sum": {"reduction": "sum"},
    "Entmax15Loss.ignore_index": {"ignore_index": 0, "reduction": "none"},
    "Entmax15Loss.k": {"k": 3},
    "SparsemaxBisectLoss": {"n_iter": 30},
    "SparsemaxBisectLoss.ignore_index": {"n_iter": 30, "ignore_index": 0},
    "EntmaxBisectLoss": {},
    "EntmaxBisectLoss.alpha": {"alpha": 1.25, "n_iter": 30, "reduction": "sum"},
    "EntmaxBisectLoss.ignore_index": {"n_iter": 30, "ignore_index": 0},
    "NormmaxBisectLoss": {"n_iter": 30},
    "sparsemax_loss": {},
    "entmax15_loss": {},
    "entmax15_loss.k": {"k": 3},
    "sparsemax_bisect_loss": {"n_iter": 30},
    "entmax_bisect_loss": {"alpha": 1.5, "n_iter": 30},
    "normmax_bisect_loss": {"alpha": 2.0, "n_iter": 30},
}

# Attention block -> the mapping its weights go through.
ATTENTION = ("entmax15", "sparsemax", "entmax_bisect.learned_alpha")


def names() -> list[str]:
    return ([f"F.{n}" for n in FUNCTIONAL] + [f"module.{n}" for n in MODULES] + [f"loss.{n}" for n in LOSSES]
            + [f"attention.{n}" for n in ATTENTION])


def scores(kind: str) -> Any:
    """Random scores of one kind (see the comment above ``FUNCTIONAL``), from a seeded generator."""
    import torch

    gen = torch.Generator().manual_seed(0)
    shape = (ROWS, CLASSES) if kind == "rows" else (3, 4, 5)
    return 2 * torch.randn(*shape, generator=gen)


def _alphas() -> Any:
    """One alpha per row of the (4, 10) scores, between 1.2 and 2."""
    import torch

    return torch.tensor([[1.2], [1.5], [1.75], [2.0]])


def _module(name: str) -> Built:
    import entmax
    import torch
    from torch import nn

    kind, keywords = MODULES[name]
    base = name.split(".")[0]
    x = scores(kind)
    if base == "EntmaxAlpha":
        per_row = keywords["per_row"]

        class EntmaxAlpha(nn.Module):
            """``entmax_bisect`` with a learned alpha, kept above 1 (entmax's README trains alpha this way)."""

            def __init__(self) -> None:
                super().__init__()
                self.pre_alpha = nn.Parameter(torch.zeros(ROWS, 1) if per_row else torch.zeros(()))

            def forward(self, x: torch.Tensor) -> Any:
                alpha = 1 + torch.nn.functional.softplus(self.pre_alpha)
                return entmax.entmax_bisect(x, alpha, dim=-1, n_iter=30)

            def entry_points(self) -> list[Any]:
                return [entmax.entmax_bisect]

        return EntmaxAlpha(), (x,), {}
    keywords = {k: _alphas() if v == "alpha_rows" else v for k, v in keywords.items()}
    return getattr(entmax, base)(**keywords), (x,), {}


def _loss(name: str) -> Built:
    import entmax
    import torch
    from torch import nn

    base = name.split(".")[0]
    keywords = LOSSES[name]
    function = base[0].islower()
    loss = getattr(entmax, base) if function else getattr(entmax, base)(**keywords)

    class Classifier(nn.Module):
        """A linear classifier's training loss: logits of the features, then the entmax loss."""

        def __init__(self) -> None:
            super().__init__()
            self.head = nn.Linear(FEATURES, CLASSES)
            if not function:
                self.loss = loss

        def forward(self, x: torch.Tensor, target: torch.Tensor) -> Any:
            logits = self.head(x)
            if function:
                return loss(logits, target, **keywords).sum()
            return self.loss(logits, target)

        def entry_points(self) -> list[Any]:
            return [loss if function else type(loss)]

    gen = torch.Generator().manual_seed(1)
    x = torch.randn(ROWS, FEATURES, generator=gen)
    target = torch.tensor([0, 3, 7, 0])  # class 0 twice, for ``ignore_index=0``
    return Classifier(), (x, target), {}


def _attention(name: str) -> Built:
    import entmax
    import torch
    from torch import nn

    mapping = name.split(".")[0]
    learned = name.endswith("learned_alpha")

    class SparseAttention(nn.Module):
        """Multi-head self-attention whose weights are a sparse mapping of the scores instead of softmax."""

        def __init__(self) -> None:
            super().__init__()
            self.qkv = nn.Linear(WIDTH, 3 * WIDTH)
            self.out = nn.Linear(WIDTH, WIDTH)
            self.norm = nn.LayerNorm(WIDTH)
            if learned:  # one alpha per head, kept in (1, 2) as the adaptively sparse transformer does
                self.pre_alpha = nn.Parameter(torch.zeros(HEADS))

        def weights(self, scores: torch.Tensor) -> Any:
            if mapping == "entmax15":
                return entmax.entmax15(scores, dim=-1)
            if mapping == "sparsemax":
                return entmax.sparsemax(scores, dim=-1)
            alpha = (1 + torch.sigmoid(self.pre_alpha)).view(1, HEADS, 1, 1)
            alpha = alpha.expand(scores.shape[0], HEADS, scores.shape[2], 1)
            return entmax.entmax_bisect(scores, alpha, dim=-1, n_iter=25)

        def forward(self, x: torch.Tensor) -> Any:
            b, t, _ = x.shape
            q, k, v = self.qkv(x).view(b, t, 3, HEADS, WIDTH // HEADS).permute(2, 0, 3, 1, 4)
            p = self.weights(q @ k.transpose(-2, -1) / (WIDTH // HEADS) ** 0.5)
            y = (p @ v).transpose(1, 2).reshape(b, t, WIDTH)
            return self.norm(x + self.out(y))

        def entry_points(self) -> list[Any]:
            return [getattr(entmax, mapping)]

    gen = torch.Generator().manual_seed(2)
    return SparseAttention(), (torch.randn(BATCH, TOKENS, WIDTH, generator=gen),), {}


def build(name: str) -> Built:
    import entmax
    from gt_calls import Call

    group, rest = name.split(".", 1)
    if group == "F":
        kind, keywords = FUNCTIONAL[rest]
        keywords = {k: _alphas() if v == "alpha_rows" else v for k, v in keywords.items()}
        return Call(getattr(entmax, rest.split(".")[0]), **keywords), (scores(kind),), {}
    if group == "module":
        return _module(rest)
    if group == "loss":
        return _loss(rest)
    return _attention(rest)
