"""Ground-truth bench, torch_struct: structured distributions scored by small networks, and their queries.

torch-struct 0.5 turns log-potentials into a distribution over structures (tag sequences, segmentations,
dependency trees, constituency trees) and answers queries on it by dynamic programming: ``partition``,
``log_prob`` of a gold structure (the training loss), ``marginals``, ``argmax``, ``entropy``,
``sample``, ``kmax`` / ``topk``. Users compute the log-potentials with a network and then one query, so
each model here is a bench module holding a small scorer (random weights) that maps random features
(3 sentences of 5 positions, width 8) to the log-potentials, builds the distribution and computes one
query of it. The queries that differentiate the dynamic program (``marginals``, ``argmax``,
``sample``, ``topk``, ``gumbel_crf``) run under ``torch.enable_grad()``, which they need in eval mode,
and so do all of ``DependencyCRF``'s: its dynamic program marks its converted potentials as requiring
gradients and then writes into views of them, which fails under ``no_grad``.
``log_prob`` converts gold structures with the structure's ``to_parts``, as the library's examples do.

- ``DISTRIBUTIONS``: ``LinearChainCRF`` (emission and transition scores), ``SemiMarkovCRF`` (width 3),
  ``DependencyCRF`` (biaffine arc scores: unlabeled, labeled, single-root), ``NonProjectiveDependencyCRF``
  (single- and multi-root), ``TreeCRF`` (span scores), ``SentCFG`` (terms, rules and roots of a small
  grammar), ``HMM`` (learned transition, emission and initial log-probabilities over observed tokens),
  each with the queries that take its main code paths, some with ``lengths`` (5, 4 and 3) given
  (``.lengths.``); ``LinearChainCRF.kl`` compares the posterior with a second, prior scorer's;
- ``AUTOREGRESSIVE``: ``Autoregressive`` over a small GRU decoder (``AutoregressiveModel``): ``log_prob``,
  and the beam searches ``greedy_max`` and ``beam_topk``, and ``sample``;
- ``SEMIRINGS``: the structures' own API, ``LinearChain(semiring).sum(...)`` / ``.marginals(...)``, with
  semirings that the distributions' queries do not run (``LogSemiring`` is their ``partition`` and
  ``marginals``, ``MaxSemiring`` their ``argmax``, ``KMaxSemiring`` their ``topk``, ``EntropySemiring``
  and ``MultiSampledSemiring`` their ``entropy`` and ``sample``): ``MaxSemiring``'s ``sum`` (the
  distributions' ``max``), ``StdSemiring``, ``SampledSemiring``, ``SparseMaxSemiring`` and
  ``CheckpointSemiring`` over ``LogSemiring``.

Each library's run is kept to a few minutes, so the tables pick one query per code path rather than every
query of every distribution. Left out: ``AlignmentCRF``, whose dynamic program needs ``genbmm`` (not
installed; without it every alignment longer than one step fails eagerly). Random weights, nothing
downloaded. Tables are plain data, so ``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
BATCH, N, C, K, H = 3, 5, 3, 3, 8  # sentences, positions, classes, segment width, feature width
LENGTHS = (5, 4, 3)
LABELS, NT, T, VOCAB = 2, 2, 3, 6  # arc labels, grammar non-terminals and terminals, HMM vocabulary
SAMPLES, TOP = 2, 2

# Queries that differentiate the dynamic program, run under ``enable_grad``.
GRAD_QUERIES = ("marginals", "argmax", "sample", "topk", "gumbel_crf")

# Distribution -> (queries without lengths, queries with lengths). A query may carry a variant of the
# scorer after a colon ("labeled", "single_root", "multiroot").
DISTRIBUTIONS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "LinearChainCRF": (("partition", "log_prob", "marginals", "argmax", "entropy", "sample", "topk", "kl",
                        "gumbel_crf"),
                       ("partition", "marginals")),
    "SemiMarkovCRF": (("partition", "log_prob", "marginals"), ("partition",)),
    "DependencyCRF": (("partition", "log_prob", "marginals", "argmax", "labeled:marginals", "single_root:marginals"),
                      ()),
    "NonProjectiveDependencyCRF": (("partition", "marginals", "multiroot:marginals"), ("marginals",)),
    "TreeCRF": (("partition", "log_prob", "marginals", "argmax"), ()),
    "SentCFG": (("partition", "marginals"), ("partition",)),
    "HMM": (("partition", "log_prob", "marginals"), ()),
}
AUTOREGRESSIVE = ("log_prob", "greedy_max", "beam_topk", "sample")
# Semiring model -> (structure, semiring, method). ``CheckpointSemiring`` wraps ``LogSemiring``.
SEMIRINGS: dict[str, tuple[str, str, str]] = {
    "LinearChain.MaxSemiring.sum": ("LinearChain", "MaxSemiring", "sum"),
    "LinearChain.StdSemiring.sum": ("LinearChain", "StdSemiring", "sum"),
    "LinearChain.SampledSemiring.marginals": ("LinearChain", "SampledSemiring", "marginals"),
    "LinearChain.SparseMaxSemiring.marginals": ("LinearChain", "SparseMaxSemiring", "marginals"),
    "LinearChain.CheckpointSemiring.sum": ("LinearChain", "CheckpointSemiring", "sum"),
}


def names() -> list[str]:
    models = []
    for dist, (plain, with_lengths) in DISTRIBUTIONS.items():
        models += [f"{dist}.{q.replace(':', '.')}" for q in plain]
        models += [f"{dist}.lengths.{q.replace(':', '.')}" for q in with_lengths]
    return models + [f"Autoregressive.{q}" for q in AUTOREGRESSIVE] + [f"struct.{s}" for s in SEMIRINGS]


def _scorer(dist: str, variant: str = "") -> Any:
    """A small network from features (BATCH x N x H; HMM: token indices) to the log-potentials of ``dist``."""
    import torch
    from torch import nn

    class Chain(nn.Module):
        """Linear-chain potentials: emission scores of the next class plus a learned transition matrix,
        the first edge also scoring the first class: BATCH x (N-1) x C x C (next, previous)."""

        def __init__(self) -> None:
            super().__init__()
            self.emit = nn.Linear(H, C)
            self.transition = nn.Parameter(0.1 * torch.randn(C, C))

        def forward(self, x: torch.Tensor) -> Any:
            e = self.emit(x)
            edges = e[:, 1:, :, None] + self.transition
            first = edges[:, :1] + e[:, :1, None, :]
            return torch.cat([first, edges[:, 1:]], dim=1)

    class SemiMarkov(nn.Module):
        """Segment potentials BATCH x (N-1) x K x C x C from the features at each segment's start."""

        def __init__(self) -> None:
            super().__init__()
            self.proj = nn.Linear(H, K * C * C)

        def forward(self, x: torch.Tensor) -> Any:
            return self.proj(x[:, :-1]).view(x.shape[0], N - 1, K, C, C)

    class Biaffine(nn.Module):
        """Arc scores BATCH x N x N (head, child; root scores on the diagonal), or x LABELS if labeled."""

        def __init__(self, labels: int = 0) -> None:
            super().__init__()
            self.labels = labels
            self.head = nn.Linear(H, H * max(labels, 1))
            self.child = nn.Linear(H, H)

        def forward(self, x: torch.Tensor) -> Any:
            heads, children = self.head(x), self.child(x)
            if not self.labels:
                return heads @ children.transpose(1, 2) / H
            heads = heads.view(x.shape[0], N, self.labels, H)
            return torch.einsum("bilh,bjh->bijl", heads, children) / H

    class Spans(nn.Module):
        """Span scores BATCH x N x N x NT from the span's two ends."""

        def __init__(self) -> None:
            super().__init__()
            self.left = nn.Linear(H, NT)
            self.right = nn.Linear(H, NT)

        def forward(self, x: torch.Tensor) -> Any:
            return self.left(x)[:, :, None] + self.right(x)[:, None, :]

    class Grammar(nn.Module):
        """A small PCFG: terminal scores from the features, learned rule and root log-probabilities."""

        def __init__(self) -> None:
            super().__init__()
            self.terms = nn.Linear(H, T)
            self.rules = nn.Parameter(torch.randn(NT, NT + T, NT + T))
            self.roots = nn.Parameter(torch.randn(NT))

        def forward(self, x: torch.Tensor) -> Any:
            b = x.shape[0]
            rules = self.rules.view(NT, -1).log_softmax(-1).view(1, NT, NT + T, NT + T).expand(b, -1, -1, -1)
            return self.terms(x).log_softmax(-1), rules, self.roots.log_softmax(-1).expand(b, NT)

    class HMMParameters(nn.Module):
        """Learned transition, emission and initial log-probabilities of an HMM."""

        def __init__(self) -> None:
            super().__init__()
            self.transition = nn.Parameter(torch.randn(C, C))
            self.emission = nn.Parameter(torch.randn(VOCAB, C))
            self.init = nn.Parameter(torch.randn(C))

        def forward(self, x: torch.Tensor) -> Any:
            return (self.transition.log_softmax(0), self.emission.log_softmax(0), self.init.log_softmax(0))

    if dist in ("LinearChainCRF", "LinearChain"):
        return Chain()
    if dist in ("SemiMarkovCRF", "SemiMarkov"):
        return SemiMarkov()
    if dist in ("DependencyCRF", "NonProjectiveDependencyCRF", "DepTree"):
        return Biaffine(LABELS if variant == "labeled" else 0)
    if dist in ("TreeCRF", "CKY_CRF"):
        return Spans()
    if dist == "SentCFG":
        return Grammar()
    return HMMParameters()


def _inputs(dist: str) -> tuple[Any, Any, Any]:
    """Features (token indices for the HMM), lengths and a gold structure in its compact form."""
    import torch

    gen = torch.Generator().manual_seed(0)
    lengths = torch.tensor(LENGTHS)
    if dist == "HMM":
        x = torch.randint(0, VOCAB, (BATCH, N), generator=gen)
    else:
        x = torch.randn(BATCH, N, H, generator=gen)
    if dist in ("DependencyCRF", "NonProjectiveDependencyCRF"):
        gold = torch.tensor([[0, 1, 1, 3, 3], [2, 0, 2, 2, 0], [0, 1, 2, 0, 0]])  # heads, 0 the root
    elif dist == "SemiMarkovCRF":
        gold = torch.tensor([[0, -1, 2, 1, -1], [1, 1, -1, 0, 2], [2, -1, 1, -1, 0]])  # -1 continues a segment
    elif dist == "TreeCRF":  # a right-branching tree over each sentence, labels alternating
        gold = torch.zeros(BATCH, N, N, NT)
        for i in range(N):
            gold[:, i, i, i % NT] = 1
            gold[:, i, N - 1, (i + 1) % NT] = 1
    else:
        gold = torch.randint(0, C, (BATCH, N), generator=gen)
    return x, lengths, gold


def _query_function(cls: Any, query: str) -> Any:
    """The library function a query runs: the method, or the function under a ``lazy_property``."""
    import inspect

    attribute = inspect.getattr_static(cls, query)
    return getattr(attribute, "wrapped", attribute)


def _distribution(name: str) -> Built:
    import torch
    import torch_struct
    from torch import nn

    parts = name.split(".")
    dist = parts[0]
    use_lengths = parts[1] == "lengths"
    rest = parts[2:] if use_lengths else parts[1:]
    variant, query = (rest[0], rest[1]) if len(rest) == 2 else ("", rest[0])
    cls = getattr(torch_struct, dist)
    scorer = _scorer(dist, variant)
    prior = _scorer(dist) if query == "kl" else None
    x, lengths, gold = _inputs(dist)

    def make(potentials: Any, lens: Any, x: torch.Tensor) -> Any:
        if dist == "HMM":
            return cls(*potentials, x, lengths=lens)
        if dist == "DependencyCRF" and variant == "single_root":
            return cls(potentials, lengths=lens, multiroot=False)
        if dist == "NonProjectiveDependencyCRF" and variant == "multiroot":
            return cls(potentials, lengths=lens, multiroot=True)
        return cls(potentials, lengths=lens)

    def event(d: Any, gold: torch.Tensor, lens: Any) -> Any:
        """The gold structure as the distribution's event, by the structure's ``to_parts``."""
        if dist in ("LinearChainCRF", "HMM"):
            parts = d.struct.to_parts(gold, C, lengths=lens)
        elif dist == "SemiMarkovCRF":
            parts = d.struct.to_parts(gold, (C, K), lengths=lens)
        elif dist == "DependencyCRF":
            parts = d.struct.to_parts(gold, lengths=lens)
        else:  # TreeCRF: the span indicators are the event
            parts = d.struct.to_parts(gold, None, lengths=lens)
        return parts.type_as(d.log_potentials)

    class Query(nn.Module):
        """Potentials from the scorer, the distribution, then one query of it."""

        def __init__(self) -> None:
            super().__init__()
            self.scorer = scorer
            if prior is not None:
                self.prior = prior

        def run(self, x: torch.Tensor, lens: Any, gold: torch.Tensor) -> Any:
            d = make(self.scorer(x), lens, x)
            if query == "log_prob":
                return -d.log_prob(event(d, gold, lens)).sum()
            if query == "sample":
                return d.sample((SAMPLES,))
            if query == "topk":
                return d.topk(TOP)
            if query == "gumbel_crf":
                return d.gumbel_crf(0.5)
            if query == "kl":
                return d.kl(make(self.prior(x), lens, x))
            return getattr(d, query)

        def forward(self, x: torch.Tensor, lens: Any, gold: torch.Tensor) -> Any:
            if query in GRAD_QUERIES or dist == "DependencyCRF":
                with torch.enable_grad():
                    return self.run(x, lens, gold)
            return self.run(x, lens, gold)

        def entry_points(self) -> list[Any]:
            # ``log_prob``'s event is made here too, by the structure's ``to_parts`` (declared since 2026-11-28).
            made = [cls.struct.to_parts] if query == "log_prob" and isinstance(getattr(cls, "struct", None), type) else []
            return [cls.__init__, _query_function(cls, query), *made]

    return Query(), (x, lengths if use_lengths else None, gold), {}


def _autoregressive(query: str) -> Built:
    import torch
    import torch_struct
    from torch import nn

    class Decoder(torch_struct.AutoregressiveModel):
        """A GRU decoder over class tokens: ``forward(tokens, state)`` returns logits and the next state."""

        def __init__(self) -> None:
            super().__init__()
            self.embed = nn.Embedding(C, H)
            self.rnn = nn.GRU(H, H, batch_first=True)
            self.out = nn.Linear(H, C)

        def forward(self, inputs: torch.Tensor, state: Any = None) -> Any:
            h, hidden = self.rnn(self.embed(inputs), state[0].unsqueeze(0).contiguous())
            return self.out(h), (hidden.squeeze(0),)

    class Encoder(nn.Module):
        """The initial decoder state from a source vector; then one query of the autoregressive distribution."""

        def __init__(self) -> None:
            super().__init__()
            self.init = nn.Linear(H, H)
            self.decoder = Decoder()

        def forward(self, source: torch.Tensor, value: torch.Tensor) -> Any:
            d = torch_struct.Autoregressive(self.decoder, (torch.tanh(self.init(source)),), C, N)
            if query == "log_prob":
                return d.log_prob(value).sum()
            if query == "sample":
                return d.sample(torch.Size([SAMPLES]))
            with torch.enable_grad():  # the beam search differentiates its scores for the back pointers
                return d.beam_topk(TOP) if query == "beam_topk" else d.greedy_max()

        def entry_points(self) -> list[Any]:
            return [torch_struct.Autoregressive.__init__, getattr(torch_struct.Autoregressive, query)]

    gen = torch.Generator().manual_seed(0)
    source = torch.randn(BATCH, H, generator=gen)
    value = torch.nn.functional.one_hot(torch.randint(0, C, (1, BATCH, N), generator=gen), C)
    return Encoder(), (source, value), {}


def _semiring(name: str) -> Built:
    import torch
    import torch_struct
    from torch import nn

    structure, semiring, method = SEMIRINGS[name]
    sr = getattr(torch_struct, semiring)
    if semiring == "CheckpointSemiring":
        sr = sr(torch_struct.LogSemiring)
    struct = getattr(torch_struct, structure)(sr)
    scorer = _scorer(structure)
    x, _, _ = _inputs("LinearChainCRF")

    class StructCall(nn.Module):
        """Potentials from the scorer, then ``Struct(semiring).sum`` or ``.marginals`` of them."""

        def __init__(self) -> None:
            super().__init__()
            self.scorer = scorer

        def forward(self, x: torch.Tensor) -> Any:
            if method == "sum":
                return struct.sum(self.scorer(x))
            with torch.enable_grad():
                return struct.marginals(self.scorer(x))

        def entry_points(self) -> list[Any]:
            return [getattr(type(struct), method)]

    return StructCall(), (x,), {}


def build(name: str) -> Built:
    import warnings

    warnings.filterwarnings("ignore")  # torch.distributions' note on validation of the batch shape
    if name.startswith("struct."):
        return _semiring(name.split(".", 1)[1])
    if name.startswith("Autoregressive."):
        return _autoregressive(name.split(".", 1)[1])
    return _distribution(name)
