"""Ground-truth bench, ogb: the Open Graph Benchmark's torch pieces, encoders, evaluators and tensor helpers.

ogb 1.3.6 is mostly dataset loaders (downloads, left out here); what runs on tensors is what a user's training
script calls around its model: the molecule encoders of ``ogb.graphproppred.mol_encoder`` (``AtomEncoder`` and
``BondEncoder``: one embedding table per categorical feature, summed in a loop over the feature columns), the
``Evaluator`` classes of the three prediction tasks (fed torch tensors: graph and node property evaluators move
them to NumPy and score with scikit-learn, ROC-AUC, average precision, RMSE, accuracy or F1 over token lists; the
link evaluator stays in torch for Hits@K, ``topk``, and MRR, rank counts, and goes to NumPy for ROC-AUC), the
large-scale challenge evaluators of ``ogb.lsc`` (MAG240M accuracy, WikiKG90M and WikiKG90Mv2 MRR with their
duplicate checks and ``nonzero`` scatter, PCQM4M / PCQM4Mv2 MAE) and ``lsc.utils.split_test``, and the helpers of
``ogb.utils`` (``replace_numpy_with_torchtensor``, ``all_numpy``, the feature decoders). So the tables cover:

- ``ENCODERS``: the encoders at a few widths and column counts, a small molecular GNN built on them (encoded
  atoms and bonds, sum aggregation by ``index_add``, mean pooling per graph), and training steps through both;
- ``EVALUATORS``: ``Evaluator.eval`` for the metrics Dynamo can run through (``ogbg-molesol`` RMSE, ``-ppa``
  accuracy, ``-code2`` F1; ``ogbn-arxiv`` accuracy; ``ogbl-collab`` Hits@K, ``-ddi`` with fewer negatives than K,
  ``-ppa`` given a NumPy positive array, ``-citation2`` and ``-wikikg2`` MRR). The ROC-AUC and average precision
  evaluators are left out: Dynamo fails with an internal error inside scikit-learn's input checks (narwhals),
  so those models cannot run;
- ``LSC``: the challenge evaluators, ``split_test`` and PCQM4M's evaluators (their modules import RDKit, which is
  not installed: the builder gives them a stand-in ``rdkit`` module, as no RDKit call is made);
- ``UTILS``: the ``ogb.utils`` helpers on tensors, arrays and the encoders' inputs.

Random inputs and weights, nothing downloaded. ``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
ATOMS, BONDS, GRAPHS, EMB = 7, 12, 2, 8

ENCODERS = ("AtomEncoder", "AtomEncoder.emb_dim_3", "AtomEncoder.3_columns", "BondEncoder", "BondEncoder.1_column",
            "mol_gnn", "mol_gnn.train_step", "AtomEncoder.train_step")
# Evaluator model name -> (task: "graph", "node" or "link", dataset name, input kind).
EVALUATORS: dict[str, tuple[str, str, str]] = {
    "graphproppred.Evaluator.molesol.rmse": ("graph", "ogbg-molesol", "regression"),
    "graphproppred.Evaluator.ppa.acc": ("graph", "ogbg-ppa", "classes"),
    "graphproppred.Evaluator.code2.F1": ("graph", "ogbg-code2", "sequences"),
    "nodeproppred.Evaluator.arxiv.acc": ("node", "ogbn-arxiv", "classes"),
    "linkproppred.Evaluator.collab.hits": ("link", "ogbl-collab", "hits"),
    "linkproppred.Evaluator.ddi.hits.few_negatives": ("link", "ogbl-ddi", "hits_few"),
    "linkproppred.Evaluator.ppa.hits.numpy_positive": ("link", "ogbl-ppa", "hits_numpy"),
    "linkproppred.Evaluator.citation2.mrr": ("link", "ogbl-citation2", "mrr"),
    "linkproppred.Evaluator.wikikg2.mrr": ("link", "ogbl-wikikg2", "mrr"),
}
LSC = ("MAG240MEvaluator", "WikiKG90MEvaluator", "WikiKG90MEvaluator.duplicated", "WikiKG90MEvaluator.calculate_mrr",
       "WikiKG90Mv2Evaluator", "WikiKG90Mv2Evaluator.padded", "split_test", "PCQM4MEvaluator", "PCQM4Mv2Evaluator")
UTILS = ("replace_numpy_with_torchtensor", "all_numpy", "atom_feature_vector_to_dict", "bond_feature_vector_to_dict")


def names() -> list[str]:
    return list(ENCODERS) + list(EVALUATORS) + list(LSC) + list(UTILS)


def _gen(seed: int) -> Any:
    import torch

    return torch.Generator().manual_seed(seed)


def _atoms(columns: int | None = None, seed: int = 1) -> Any:
    """Categorical atom features, each column below its vocabulary size."""
    import torch
    from ogb.utils.features import get_atom_feature_dims

    dims = get_atom_feature_dims()[:columns]
    return torch.stack([torch.randint(0, d, (ATOMS,), generator=_gen(seed + i)) for i, d in enumerate(dims)], 1)


def _bonds(columns: int | None = None, seed: int = 20) -> Any:
    import torch
    from ogb.utils.features import get_bond_feature_dims

    dims = get_bond_feature_dims()[:columns]
    return torch.stack([torch.randint(0, d, (BONDS,), generator=_gen(seed + i)) for i, d in enumerate(dims)], 1)


def _graph() -> tuple[Any, Any, Any, Any]:
    """A batch of two molecules: atom features, bond index pairs, bond features and the graph of each atom."""
    import torch

    edge_index = torch.stack([torch.randint(0, ATOMS, (BONDS,), generator=_gen(30)),
                              torch.randint(0, ATOMS, (BONDS,), generator=_gen(31))])
    batch = torch.tensor([0, 0, 0, 0, 1, 1, 1])
    return _atoms(), edge_index, _bonds(), batch


def _mol_gnn() -> Any:
    import torch
    from ogb.graphproppred.mol_encoder import AtomEncoder, BondEncoder
    from torch import nn

    class _MolGNN(nn.Module):
        """Two sum-aggregation layers over encoded atoms and bonds, mean-pooled per graph, one task."""

        def __init__(self) -> None:
            super().__init__()
            self.atoms = AtomEncoder(EMB)
            self.bonds = nn.ModuleList(BondEncoder(EMB) for _ in range(2))
            self.mlps = nn.ModuleList(nn.Sequential(nn.Linear(EMB, EMB), nn.ReLU()) for _ in range(2))
            self.head = nn.Linear(EMB, 1)

        def forward(self, x: torch.Tensor, edge_index: torch.Tensor, edge_attr: torch.Tensor,
                    batch: torch.Tensor) -> torch.Tensor:
            h = self.atoms(x)
            for bonds, mlp in zip(self.bonds, self.mlps):
                messages = torch.relu(h[edge_index[0]] + bonds(edge_attr))
                h = mlp(h + torch.zeros_like(h).index_add_(0, edge_index[1], messages))
            counts = torch.bincount(batch, minlength=GRAPHS)[:, None]
            pooled = torch.zeros(GRAPHS, EMB).index_add_(0, batch, h) / counts
            return self.head(pooled)

        def entry_points(self) -> list[Any]:
            return [AtomEncoder, BondEncoder]

    return _MolGNN()


def _encoders(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from ogb.graphproppred.mol_encoder import AtomEncoder, BondEncoder

    from gt_calls import OptimizerStep

    if name == "AtomEncoder":
        return AtomEncoder(EMB), (_atoms(),), {}
    if name == "AtomEncoder.emb_dim_3":
        return AtomEncoder(3), (_atoms(),), {}
    if name == "AtomEncoder.3_columns":
        return AtomEncoder(EMB), (_atoms(3),), {}
    if name == "BondEncoder":
        return BondEncoder(EMB), (_bonds(),), {}
    if name == "BondEncoder.1_column":
        return BondEncoder(EMB), (_bonds(1),), {}
    if name == "mol_gnn":
        return _mol_gnn(), _graph(), {}
    if name == "mol_gnn.train_step":
        net = _mol_gnn()
        optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
        target = torch.tensor([[1.0], [0.0]])

        def loss(*graph: torch.Tensor) -> torch.Tensor:
            return F.binary_cross_entropy_with_logits(net(*graph), target)

        class _GNNStep(OptimizerStep):
            def entry_points(self) -> list[Any]:
                return [AtomEncoder, BondEncoder, type(optimizer).step]

        return _GNNStep(net, optimizer, loss), _graph(), {}
    encoder = AtomEncoder(EMB)
    optimizer = torch.optim.SGD(encoder.parameters(), lr=0.1)
    target = torch.randn(ATOMS, EMB, generator=_gen(5))

    class _EncoderStep(OptimizerStep):
        def entry_points(self) -> list[Any]:
            return [AtomEncoder, type(optimizer).step]

    return _EncoderStep(encoder, optimizer, lambda x: F.mse_loss(encoder(x), target)), (_atoms(),), {}


def _evaluator_inputs(kind: str, tasks: int) -> tuple[Any, ...]:
    import numpy as np
    import torch

    rows = 16
    if kind in ("binary", "binary_nan", "model"):
        y_true = torch.stack([torch.arange(rows) % 2] * tasks, 1)[torch.randperm(rows, generator=_gen(3))]
        y_pred = torch.randn(rows, tasks, generator=_gen(4))
        if kind == "binary_nan":
            y_true = y_true.float()
            y_true[::5, ::2] = float("nan")
        return y_true, y_pred
    if kind == "regression":
        return torch.randn(rows, tasks, generator=_gen(3)), torch.randn(rows, tasks, generator=_gen(4))
    if kind == "classes":
        return (torch.randint(0, 5, (rows, tasks), generator=_gen(3)),
                torch.randint(0, 5, (rows, tasks), generator=_gen(4)))
    if kind == "sequences":
        return ([["get", "value"], ["set"], ["to", "string"]], [["get", "value"], ["set", "name"], ["string"]])
    if kind in ("hits", "hits_few"):
        return torch.randn(rows, generator=_gen(3)), torch.randn(60 if kind == "hits" else 10, generator=_gen(4))
    if kind == "hits_numpy":
        return np.random.default_rng(3).standard_normal(rows), torch.randn(120, generator=_gen(4))
    if kind == "mrr":
        return torch.randn(rows, generator=_gen(3)), torch.randn(rows, 20, generator=_gen(4))
    return torch.randn(rows, generator=_gen(3)) + 0.5, torch.randn(rows, generator=_gen(4))


def _evaluators(name: str) -> Built:
    import importlib

    import torch
    from torch import nn

    from gt_calls import Run

    task, dataset, kind = EVALUATORS[name]
    module = {"graph": "ogb.graphproppred", "node": "ogb.nodeproppred", "link": "ogb.linkproppred"}[task]
    evaluator = importlib.import_module(module).Evaluator(dataset)
    entries = [type(evaluator).eval]
    inputs = _evaluator_inputs(kind, getattr(evaluator, "num_tasks", 1))
    if task == "link":
        def run(owner: Any, pos: Any, neg: Any) -> Any:
            return owner.eval({"y_pred_pos": pos, "y_pred_neg": neg})
    elif kind == "sequences":
        def run(owner: Any, ref: Any, pred: Any) -> Any:
            return owner.eval({"seq_ref": ref, "seq_pred": pred})
    elif kind == "model":
        head = nn.Linear(4, 1)
        features = torch.randn(inputs[0].shape[0], 4, generator=_gen(6))
        inputs = (inputs[0], features)

        def run(owner: Any, y_true: Any, x: Any) -> Any:
            return owner.eval({"y_true": y_true, "y_pred": head(x)})
    else:
        def run(owner: Any, y_true: Any, y_pred: Any) -> Any:
            return owner.eval({"y_true": y_true, "y_pred": y_pred})
    return Run(evaluator, run, entries), inputs, {}


def _pcqm_module(module: str) -> Any:
    """``ogb.lsc.pcqm4m`` or ``pcqm4mv2``: they import ``smiles2graph`` (RDKit) at the top; without RDKit, a stand-in
    ``rdkit`` module lets them import (no RDKit call is made by the evaluators)."""
    import importlib
    import sys
    import types

    try:
        return importlib.import_module(module)
    except ImportError:
        rdkit = types.ModuleType("rdkit")
        rdkit.Chem = types.ModuleType("rdkit.Chem")  # type: ignore[attr-defined]
        sys.modules.setdefault("rdkit", rdkit)
        sys.modules.setdefault("rdkit.Chem", rdkit.Chem)  # type: ignore[attr-defined]
        import ogb.utils
        import ogb.utils.mol

        ogb.utils.smiles2graph = ogb.utils.mol.smiles2graph  # type: ignore[attr-defined]
        return importlib.import_module(module)


def _lsc(name: str) -> Built:
    import torch

    from gt_calls import Call, Run

    rows = 8
    if name == "MAG240MEvaluator":
        from ogb.lsc import MAG240MEvaluator

        return Run(MAG240MEvaluator(), lambda ev, p, t: ev.eval({"y_pred": p, "y_true": t}),
                   [MAG240MEvaluator.eval]), (torch.randint(0, 5, (rows,), generator=_gen(1)),
                                              torch.randint(0, 5, (rows,), generator=_gen(2))), {}
    top10 = torch.stack([torch.randperm(1000, generator=_gen(10 + i))[:10] for i in range(rows)])
    correct = torch.where(torch.arange(rows) % 2 == 0, top10[:, 3], torch.tensor(1000))
    if name.startswith("WikiKG90MEvaluator"):
        from ogb.lsc import WikiKG90MEvaluator

        if name.endswith("calculate_mrr"):
            return Call(WikiKG90MEvaluator()._calculate_mrr), (correct, top10), {}
        if name.endswith("duplicated"):
            top10 = top10.clone()
            top10[2, 1] = top10[2, 0]
        return Run(WikiKG90MEvaluator(),
                   lambda ev, p, t: ev.eval({"h,r->t": {"t_pred_top10": p, "t_correct_index": t}}),
                   [WikiKG90MEvaluator.eval]), (top10, correct), {}
    if name.startswith("WikiKG90Mv2Evaluator"):
        from ogb.lsc import WikiKG90Mv2Evaluator

        if name.endswith("padded"):
            top10 = top10.clone()
            top10[:, 7:] = -1
        return Run(WikiKG90Mv2Evaluator(), lambda ev, p, t: ev.eval({"h,r->t": {"t_pred_top10": p, "t": t}}),
                   [WikiKG90Mv2Evaluator.eval]), (top10, correct), {}
    if name == "split_test":
        from ogb.lsc.utils import split_test

        def split(owner: Any, train: Any, valid: Any, test: Any) -> Any:
            splits = {"train": train, "valid": valid, "test": test}
            owner(splits)
            return splits

        return Run(split_test, split, [split_test]), (torch.arange(10), torch.arange(10, 14), torch.arange(14, 27)), {}
    module = _pcqm_module("ogb.lsc.pcqm4m" if name == "PCQM4MEvaluator" else "ogb.lsc.pcqm4mv2")
    cls = getattr(module, name)
    return Run(cls(), lambda ev, p, t: ev.eval({"y_pred": p, "y_true": t}), [cls.eval]), \
        (torch.randn(rows, generator=_gen(1)), torch.randn(rows, generator=_gen(2))), {}


def _utils(name: str) -> Built:
    import numpy as np
    import torch

    from gt_calls import Call, Run

    if name == "replace_numpy_with_torchtensor":
        from ogb.utils.torch_util import replace_numpy_with_torchtensor

        def replace(owner: Any, node_feat: Any, edge_index: Any) -> Any:
            graph = {"node_feat": node_feat.numpy(), "edge_index": edge_index.numpy(), "num_nodes": ATOMS,
                     "extra": [edge_index.numpy()]}
            return owner(graph)

        return Run(replace_numpy_with_torchtensor, replace, [replace_numpy_with_torchtensor]), \
            (_atoms(), _graph()[1]), {}
    if name == "all_numpy":
        from ogb.utils.torch_util import all_numpy

        def check(owner: Any, x: Any) -> Any:
            return owner({"node_feat": x, "num_nodes": ATOMS, "edge": [np.zeros(3), 1.0]}), x + 1

        return Run(all_numpy, check, [all_numpy]), (torch.randn(ATOMS, 3, generator=_gen(1)),), {}
    from ogb.utils import features

    if name == "atom_feature_vector_to_dict":
        return Run(features.atom_feature_vector_to_dict, lambda f, x: f(x[0].tolist()),
                   [features.atom_feature_vector_to_dict]), (_atoms(),), {}
    return Call(features.bond_feature_vector_to_dict), ([1, 2, 0],), {}


def build(name: str) -> Built:
    import warnings

    import torch

    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    if name in ENCODERS:
        return _encoders(name)
    if name in EVALUATORS:
        return _evaluators(name)
    if name in LSC:
        return _lsc(name)
    return _utils(name)
