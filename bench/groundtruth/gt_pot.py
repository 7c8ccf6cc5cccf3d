"""Ground-truth bench, ot (POT, Python Optimal Transport 0.9.7): its solvers called on torch tensors.

POT is a library of optimal transport solvers written once against a backend abstraction
(``ot.backend``): passed torch tensors, every function dispatches to ``TorchBackend`` and runs in
torch, differentiably, except the exact linear-program solvers (``ot.emd``, ``ot.emd2``, the partial
and Gromov solvers built on them), which convert to NumPy, call the C++ network simplex and wrap the
result back, with custom gradients. Users put its functions inside a compiled loss or model: an
entropic OT loss between a batch and a target (``ot.sinkhorn2(a, b, ot.dist(x, y), reg)``), a
sliced-Wasserstein loss of a generator, a Gromov-Wasserstein loss between graphs, the plan of
``ot.emd`` as a domain-adaptation coupling (DeepJDOT), ``ot.solve_sample`` in a training step. So each
model of the tables is one of:

- ``CALLS``: a public function compiled through a bench wrapper (``gt_calls.Call`` for positional
  tensors, ``_Keyed`` where tensors go by keyword or where the user reads an attribute of the
  returned ``OTResult``), with fixed keyword options, in the variants that change the code that runs:

  - ``ot.sinkhorn`` with each method but epsilon scaling (``sinkhorn``, ``sinkhorn_log``,
    ``sinkhorn_stabilized``, ``greenkhorn``) and ``ot.sinkhorn2`` with the three it takes,
    ``log=True``, uniform weights given as ``[]``, and several target histograms at once;
  - ``ot.bregman``: ``sinkhorn_knopp`` and ``sinkhorn_stabilized`` (with a warm start) called
    directly, Wasserstein barycenters (``barycenter`` with two methods and with weights, debiased),
    convolutional barycenters of 2-D images (two methods), the empirical (sample-based) Sinkhorn (dense
    and lazy) and its divergence, Nyström and screenkhorn;
  - ``ot.unbalanced``: ``sinkhorn_unbalanced(2)`` with each method, ``reg_type`` and a pair of
    marginal relaxations, the majorization-minimization (KL, L2) and L-BFGS-B solvers, the unbalanced
    barycenter and the sliced unbalanced loss;
  - ``ot.partial``: exact, Lagrangian and entropic partial OT (plans), and its 1-D solver;
  - ``ot.gromov``: (fused) Gromov-Wasserstein, exact (conditional gradient; the KL loss with the
    Armijo search; their values ``gromov_wasserstein2`` and ``fused_gromov_wasserstein2`` are the
    train losses below), entropic (PGD, PPA), BAPG, semi-relaxed and partial;
  - ``ot.sliced``: sliced (``p``, weights, given projections) and max-sliced Wasserstein, and the
    sliced Wasserstein on the sphere;
  - ``ot.lp``: ``emd`` / ``emd2`` (the C++ solver) with a log and uniform weights, and the 1-D and
    circle solvers;
  - ``ot.utils``: ``dist`` with two metrics, ``unif``, ``proj_simplex``,
    ``projection_sparse_simplex``, ``cost_normalization`` and ``kernel``;
  - ``ot.smooth.smooth_ot_dual``, ``ot.optim`` (``cg`` with the default line search or
    an Armijo one given by the user, ``gcg``, both with a quadratic regularizer given as ``f`` /
    ``df``);
  - ``ot.solve`` (exact, entropic with autodiff or implicit gradients, unbalanced),
    ``ot.solve_sample`` (exact, entropic, sliced), ``ot.solve_gromov``, ``ot.solve_batch``,
    ``ot.gaussian`` (Bures-Wasserstein) and ``ot.lowrank``;

- ``DA``: the ``ot.da`` estimators (Sinkhorn, EMD, class-regularized, unbalanced, linear) fitted then
  applied in the forward (``fit`` then ``transform``), as a batch-wise domain adaptation does;
- ``GNN``: ``ot.gnn``'s template pooling layers (``TFGWPooling``, ``TWPooling``) on two small graphs;
- ``TRAIN``: bench losses with parameters (a tiny generator, a learnable structure matrix), whose value
  is an OT loss: Sinkhorn, exact (``emd2``, and the DeepJDOT form with a plan on a detached cost),
  sliced, Gromov, fused Gromov, unbalanced, Sinkhorn divergence, ``solve_sample`` and 1-D, so the
  train mode runs the differentiable paths and POT's custom gradients.

Iteration counts are small (tens), as a loss inside a training loop uses them. Left out: functions
that reject torch tensors in this version (``ot.partial.partial_gromov_wasserstein`` and its entropic
form call NumPy's ``sum(axis=...)``, ``smooth_ot_semi_dual`` calls ``.copy()``) or take NumPy only
(``ot.stochastic``, ``ot.regpath``), ``sinkhorn_epsilon_scaling`` (it mixes a NumPy array into
the torch computation and raises under ``torch.compile``), the plotting, dataset and
dictionary-learning helpers, and variants that only change a number or repeat a code path already
covered (kept out to hold the library's run to a few minutes). Inputs are tiny float32 tensors: 7
source and 8 target points in 2-D (3-D on the sphere), histograms of 7, 8 and 10 bins, 8 x 8 images,
their cost matrices, graphs of 7 and 8 nodes. Random weights, nothing downloaded. ``names()`` needs no
torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
N, M_, D, BINS = 7, 8, 2, 10

# Model name -> (module of ot, function, inputs, fixed keywords). Each input is the name of a tensor of
# ``_pool`` passed positionally, or ``keyword=tensor`` passed by keyword. A fixed keyword whose value
# starts with "@" names an object made in the worker (``_object``); ``_attr`` names the attribute of
# the returned ``OTResult`` that is read.
# Tensors: a (7,), b (8,) histograms; M (7, 8) cost; B (8, 3) three target histograms; xs (7, 2), xt
# (8, 2) points; ys (7,) labels; ws zero log-potentials; C1 (7, 7), C2 (8, 8) graph structures; A (10,
# 3) histograms of a grid with cost Mg (10, 10), w3 (3,) barycentric weights; imgs (3, 8, 8); u (7,),
# v (8,) 1-D values; su (7,), sv (8,) on the circle; ss (7, 3), st (8, 3) on the sphere; ms, mt (2,),
# Cs, Ct (2, 2) Gaussians; Mb (2, 7, 8) a batch of costs; V (3, 6) vectors to project (Vt by columns);
# P (2, 12) projections.
SK = {"reg": 0.1, "numItermax": 50}
CALLS: dict[str, tuple[str, str, tuple[str, ...], dict[str, Any]]] = {
    # ot.sinkhorn / ot.sinkhorn2
    "sinkhorn": ("ot", "sinkhorn", ("a", "b", "M"), SK),
    "sinkhorn.log": ("ot", "sinkhorn", ("a", "b", "M"), {**SK, "log": True}),
    "sinkhorn.uniform": ("ot", "sinkhorn", ("M=M",), {**SK, "a": [], "b": []}),
    "sinkhorn.sinkhorn_log": ("ot", "sinkhorn", ("a", "b", "M"), {**SK, "method": "sinkhorn_log"}),
    "sinkhorn.sinkhorn_stabilized.log": ("ot", "sinkhorn", ("a", "b", "M"),
                                         {**SK, "method": "sinkhorn_stabilized", "log": True, "tau": 100.0}),
    "sinkhorn.greenkhorn": ("ot", "sinkhorn", ("a", "b", "M"), {**SK, "method": "greenkhorn"}),
    "sinkhorn2": ("ot", "sinkhorn2", ("a", "b", "M"), SK),
    "sinkhorn2.multi_b": ("ot", "sinkhorn2", ("a", "B", "M"), SK),
    "sinkhorn2.sinkhorn_log": ("ot", "sinkhorn2", ("a", "b", "M"), {**SK, "method": "sinkhorn_log"}),
    "sinkhorn2.sinkhorn_stabilized": ("ot", "sinkhorn2", ("a", "b", "M"), {**SK, "method": "sinkhorn_stabilized"}),
    # ot.bregman, called directly
    "bregman.sinkhorn_knopp.log": ("ot.bregman", "sinkhorn_knopp", ("a", "b", "M"), {**SK, "log": True}),
    "bregman.sinkhorn_stabilized.warmstart": ("ot.bregman", "sinkhorn_stabilized", ("a", "b", "M", "warmstart=ws"),
                                              {**SK, "log": True}),
    "bregman.barycenter": ("ot.bregman", "barycenter", ("A", "Mg"), {"reg": 0.05, "numItermax": 50}),
    "bregman.barycenter.weights.log": ("ot.bregman", "barycenter", ("A", "Mg", "weights=w3"),
                                       {"reg": 0.05, "numItermax": 50, "log": True}),
    "bregman.barycenter.sinkhorn_log": ("ot.bregman", "barycenter", ("A", "Mg"),
                                        {"reg": 0.05, "numItermax": 50, "method": "sinkhorn_log", "log": True}),
    "bregman.barycenter_debiased": ("ot.bregman", "barycenter_debiased", ("A", "Mg"), {"reg": 0.05, "numItermax": 50}),
    "bregman.convolutional_barycenter2d": ("ot.bregman", "convolutional_barycenter2d", ("imgs",),
                                           {"reg": 0.01, "numItermax": 30}),
    "bregman.convolutional_barycenter2d.sinkhorn_log.log": ("ot.bregman", "convolutional_barycenter2d", ("imgs",),
                                                            {"reg": 0.01, "numItermax": 30,
                                                             "method": "sinkhorn_log", "log": True}),
    "bregman.empirical_sinkhorn": ("ot.bregman", "empirical_sinkhorn", ("xs", "xt"), {"reg": 0.1, "numIterMax": 50}),
    "bregman.empirical_sinkhorn.lazy": ("ot.bregman", "empirical_sinkhorn", ("xs", "xt"),
                                        {"reg": 0.1, "numIterMax": 20, "isLazy": True, "batchSize": 4}),
    "bregman.empirical_sinkhorn_divergence": ("ot.bregman", "empirical_sinkhorn_divergence", ("xs", "xt"),
                                              {"reg": 0.1, "numIterMax": 50}),
    "bregman.empirical_sinkhorn_nystroem": ("ot.bregman", "empirical_sinkhorn_nystroem", ("xs", "xt"),
                                            {"reg": 1.0, "anchors": 3, "numItermax": 30, "random_state": 0}),
    "bregman.screenkhorn": ("ot.bregman", "screenkhorn", ("a", "b", "M"),
                            {"reg": 0.1, "ns_budget": 4, "nt_budget": 4, "maxiter": 50}),
    # ot.unbalanced
    "unbalanced.sinkhorn_unbalanced": ("ot.unbalanced", "sinkhorn_unbalanced", ("a", "b", "M"),
                                       {"reg": 0.1, "reg_m": 1.0, "numItermax": 50}),
    "unbalanced.sinkhorn_unbalanced.entropy.reg_m_pair": ("ot.unbalanced", "sinkhorn_unbalanced", ("a", "b", "M"),
                                                          {"reg": 0.1, "reg_m": (1.0, float("inf")),
                                                           "reg_type": "entropy", "numItermax": 50}),
    "unbalanced.sinkhorn_unbalanced.sinkhorn_stabilized": ("ot.unbalanced", "sinkhorn_unbalanced", ("a", "b", "M"),
                                                           {"reg": 0.01, "reg_m": 1.0, "numItermax": 50,
                                                            "method": "sinkhorn_stabilized", "log": True}),
    "unbalanced.sinkhorn_unbalanced.translation_invariant": ("ot.unbalanced", "sinkhorn_unbalanced",
                                                             ("a", "b", "M"),
                                                             {"reg": 0.1, "reg_m": 1.0, "numItermax": 50,
                                                              "method": "sinkhorn_translation_invariant"}),
    "unbalanced.sinkhorn_unbalanced2": ("ot.unbalanced", "sinkhorn_unbalanced2", ("a", "b", "M"),
                                        {"reg": 0.1, "reg_m": 1.0, "numItermax": 50}),
    "unbalanced.mm_unbalanced": ("ot.unbalanced", "mm_unbalanced", ("a", "b", "M"),
                                 {"reg_m": 1.0, "numItermax": 30}),
    "unbalanced.mm_unbalanced.l2.log": ("ot.unbalanced", "mm_unbalanced", ("a", "b", "M"),
                                        {"reg_m": 1.0, "div": "l2", "numItermax": 30, "log": True}),
    "unbalanced.lbfgsb_unbalanced": ("ot.unbalanced", "lbfgsb_unbalanced", ("a", "b", "M"),
                                     {"reg": 0.1, "reg_m": 1.0, "numItermax": 30}),
    "unbalanced.barycenter_unbalanced": ("ot.unbalanced", "barycenter_unbalanced", ("A", "Mg"),
                                         {"reg": 0.05, "reg_m": 1.0, "numItermax": 30}),
    "unbalanced.sliced_unbalanced_ot": ("ot.unbalanced", "sliced_unbalanced_ot", ("xs", "xt"),
                                        {"reg_m": 1.0, "n_projections": 10, "seed": 0}),
    # ot.partial
    "partial.partial_wasserstein": ("ot.partial", "partial_wasserstein", ("a", "b", "M"), {"m": 0.5}),
    "partial.partial_wasserstein_lagrange": ("ot.partial", "partial_wasserstein_lagrange", ("a", "b", "M"),
                                             {"reg_m": 0.5}),
    "partial.entropic_partial_wasserstein": ("ot.partial", "entropic_partial_wasserstein", ("a", "b", "M"),
                                             {"reg": 0.1, "m": 0.5, "numItermax": 50}),
    "partial.partial_wasserstein_1d": ("ot.partial", "partial_wasserstein_1d", ("u", "v"),
                                       {"n_transported_samples": 4}),
    # ot.gromov
    "gromov.gromov_wasserstein": ("ot.gromov", "gromov_wasserstein", ("C1", "C2", "a", "b"), {"max_iter": 20}),
    "gromov.gromov_wasserstein.kl_loss.armijo": ("ot.gromov", "gromov_wasserstein", ("C1", "C2", "a", "b"),
                                                 {"max_iter": 10, "loss_fun": "kl_loss", "armijo": True}),
    "gromov.entropic_gromov_wasserstein": ("ot.gromov", "entropic_gromov_wasserstein", ("C1", "C2", "a", "b"),
                                           {"epsilon": 0.1, "max_iter": 10}),
    "gromov.entropic_gromov_wasserstein.PPA.log": ("ot.gromov", "entropic_gromov_wasserstein",
                                                   ("C1", "C2", "a", "b"),
                                                   {"epsilon": 0.1, "max_iter": 10, "solver": "PPA", "log": True}),
    "gromov.fused_gromov_wasserstein": ("ot.gromov", "fused_gromov_wasserstein", ("M", "C1", "C2", "a", "b"),
                                        {"alpha": 0.5, "max_iter": 20}),
    "gromov.entropic_fused_gromov_wasserstein": ("ot.gromov", "entropic_fused_gromov_wasserstein",
                                                 ("M", "C1", "C2", "a", "b"), {"epsilon": 0.1, "max_iter": 10}),
    "gromov.BAPG_gromov_wasserstein": ("ot.gromov", "BAPG_gromov_wasserstein", ("C1", "C2", "a", "b"),
                                       {"epsilon": 0.1, "max_iter": 10}),
    "gromov.semirelaxed_gromov_wasserstein": ("ot.gromov", "semirelaxed_gromov_wasserstein", ("C1", "C2", "a"),
                                              {"max_iter": 10}),
    "gromov.partial_gromov_wasserstein": ("ot.gromov", "partial_gromov_wasserstein", ("C1", "C2", "a", "b"),
                                          {"m": 0.5, "max_iter": 10}),
    # ot.sliced
    "sliced.sliced_wasserstein_distance": ("ot.sliced", "sliced_wasserstein_distance", ("xs", "xt"),
                                           {"n_projections": 20, "seed": 0}),
    "sliced.sliced_wasserstein_distance.weighted.p1": ("ot.sliced", "sliced_wasserstein_distance",
                                                       ("xs", "xt", "a", "b"),
                                                       {"n_projections": 20, "p": 1, "seed": 0}),
    "sliced.sliced_wasserstein_distance.projections": ("ot.sliced", "sliced_wasserstein_distance",
                                                       ("xs", "xt", "projections=P"), {}),
    "sliced.max_sliced_wasserstein_distance": ("ot.sliced", "max_sliced_wasserstein_distance", ("xs", "xt"),
                                               {"n_projections": 20, "seed": 0}),
    "sliced.sliced_wasserstein_sphere": ("ot.sliced", "sliced_wasserstein_sphere", ("ss", "st"),
                                         {"n_projections": 10, "seed": 0}),
    # ot.lp (the exact solver in C++, and the 1-D ones)
    "lp.emd": ("ot", "emd", ("a", "b", "M"), {}),
    "lp.emd.log": ("ot", "emd", ("a", "b", "M"), {"log": True}),
    "lp.emd.uniform": ("ot", "emd", ("M=M",), {"a": [], "b": []}),
    "lp.emd2": ("ot", "emd2", ("a", "b", "M"), {}),
    "lp.emd_1d": ("ot", "emd_1d", ("u", "v"), {}),
    "lp.emd2_1d": ("ot", "emd2_1d", ("u", "v", "a", "b"), {}),
    "lp.wasserstein_1d": ("ot", "wasserstein_1d", ("u", "v"), {}),
    "lp.wasserstein_circle": ("ot", "wasserstein_circle", ("su", "sv"), {"p": 2}),
    # ot.utils
    "utils.dist": ("ot", "dist", ("xs", "xt"), {}),
    "utils.dist.euclidean": ("ot", "dist", ("xs", "xt"), {"metric": "euclidean"}),
    "utils.unif": ("ot.utils", "unif", ("type_as=a",), {"n": 7}),
    "utils.proj_simplex": ("ot.utils", "proj_simplex", ("Vt",), {}),
    "utils.projection_sparse_simplex": ("ot.utils", "projection_sparse_simplex", ("V",), {"max_nz": 2}),
    "utils.cost_normalization.max": ("ot.utils", "cost_normalization", ("M",), {"norm": "max"}),
    "utils.kernel": ("ot.utils", "kernel", ("xs", "xt"), {"sigma": 0.5}),
    # ot.smooth and ot.optim
    "smooth.smooth_ot_dual": ("ot.smooth", "smooth_ot_dual", ("a", "b", "M"), {"reg": 0.1, "numItermax": 30}),
    "optim.cg": ("ot.optim", "cg", ("a", "b", "M"), {"reg": 0.1, "f": "@f", "df": "@df", "numItermax": 10}),
    "optim.cg.log.armijo": ("ot.optim", "cg", ("a", "b", "M"),
                            {"reg": 0.1, "f": "@f", "df": "@df", "numItermax": 10, "log": True,
                             "line_search": "@armijo"}),
    "optim.gcg": ("ot.optim", "gcg", ("a", "b", "M"),
                  {"reg1": 0.1, "reg2": 0.1, "f": "@f", "df": "@df", "numItermax": 5, "numInnerItermax": 20}),
    # ot.solve, ot.solve_sample, ot.solve_gromov, ot.solve_batch
    "solve.exact.value": ("ot", "solve", ("M", "a", "b"), {"_attr": "value"}),
    "solve.reg.value": ("ot", "solve", ("M", "a", "b"), {"reg": 0.1, "max_iter": 50, "_attr": "value"}),
    "solve.reg.implicit_grad": ("ot", "solve", ("M", "a", "b"),
                                {"reg": 0.1, "max_iter": 50, "grad": "implicit", "_attr": "value"}),
    "solve.unbalanced.KL": ("ot", "solve", ("M", "a", "b"),
                            {"reg": 0.1, "unbalanced": 1.0, "max_iter": 50, "_attr": "value"}),
    "solve_sample.exact": ("ot", "solve_sample", ("xs", "xt", "a", "b"), {"_attr": "value"}),
    "solve_sample.reg": ("ot", "solve_sample", ("xs", "xt"), {"reg": 0.1, "max_iter": 50, "_attr": "value"}),
    "solve_sample.sliced": ("ot", "solve_sample", ("xs", "xt"),
                            {"method": "sliced", "n_projections": 10, "random_state": 0, "_attr": "value"}),
    "solve_gromov.exact": ("ot", "solve_gromov", ("C1", "C2"), {"max_iter": 10, "_attr": "value"}),
    "solve_batch": ("ot", "solve_batch", ("Mb",), {"reg": 0.1, "max_iter": 30, "_attr": "value"}),
    # ot.gaussian, ot.gmm, ot.lowrank
    "gaussian.bures_wasserstein_distance": ("ot.gaussian", "bures_wasserstein_distance", ("ms", "mt", "Cs", "Ct"), {}),
    "gaussian.empirical_bures_wasserstein_distance": ("ot.gaussian", "empirical_bures_wasserstein_distance",
                                                      ("xs", "xt"), {}),
    "lowrank.lowrank_sinkhorn": ("ot.lowrank", "lowrank_sinkhorn", ("xs", "xt"),
                                 {"reg": 0.1, "rank": 3, "numItermax": 20}),
}

# ``ot.da`` estimator name -> (class, constructor keywords, whether ``fit`` takes the source labels).
DA: dict[str, tuple[str, dict[str, Any], bool]] = {
    "da.SinkhornTransport": ("SinkhornTransport", {"reg_e": 0.1, "max_iter": 30}, False),
    "da.EMDTransport": ("EMDTransport", {}, False),
    "da.SinkhornLpl1Transport": ("SinkhornLpl1Transport", {"reg_e": 0.1, "reg_cl": 0.1, "max_iter": 3,
                                                           "max_inner_iter": 20}, True),
    "da.UnbalancedSinkhornTransport": ("UnbalancedSinkhornTransport", {"reg_e": 0.1, "reg_m": 1.0,
                                                                       "max_iter": 30}, False),
    "da.LinearTransport": ("LinearTransport", {}, False),
}
# ``ot.gnn`` layer name -> (class, constructor keywords).
GNN: dict[str, tuple[str, dict[str, Any]]] = {
    "gnn.TFGWPooling": ("TFGWPooling", {"n_features": 3, "n_tplt": 2, "n_tplt_nodes": 3}),
    "gnn.TWPooling": ("TWPooling", {"n_features": 3, "n_tplt": 2, "n_tplt_nodes": 3}),
}
# Loss name: the OT loss of a bench module with learnable parameters (see ``_train``).
TRAIN = ("train.sinkhorn2", "train.emd2", "train.deepjdot", "train.sliced", "train.gromov_wasserstein2",
         "train.fused_gromov_wasserstein2", "train.sinkhorn_unbalanced2", "train.empirical_sinkhorn_divergence",
         "train.solve_sample")


def names() -> list[str]:
    return list(CALLS) + list(DA) + list(GNN) + list(TRAIN)


def _pool() -> dict[str, Any]:
    """The seeded tensors the models take (see the comment above ``CALLS``)."""
    import torch

    gen = torch.Generator().manual_seed(0)

    def rand(*shape: int) -> Any:
        return torch.rand(*shape, generator=gen)

    def randn(*shape: int) -> Any:
        return torch.randn(*shape, generator=gen)

    def hist(*shape: int) -> Any:
        h = rand(*shape) + 0.2
        return h / h.sum(0, keepdim=True)

    xs, xt = randn(N, D), randn(M_, D) + 1.0
    a, b = hist(N), hist(M_)
    M = torch.cdist(xs, xt) ** 2
    M = M / M.max()
    C1, C2 = torch.cdist(xs, xs), torch.cdist(xt, xt)
    grid = torch.arange(BINS, dtype=torch.float32)
    Mg = (grid[:, None] - grid[None, :]) ** 2
    Mg = Mg / Mg.max()
    A = torch.stack([torch.exp(-(grid - c) ** 2 / 2) for c in (2.0, 5.0, 7.0)], 1) + 1e-3
    A = A / A.sum(0, keepdim=True)
    imgs = rand(3, 8, 8) + 0.01
    imgs = imgs / imgs.sum((1, 2), keepdim=True)
    ss, st = randn(N, 3), randn(M_, 3)
    ss, st = ss / ss.norm(dim=1, keepdim=True), st / st.norm(dim=1, keepdim=True)
    ra, rb = randn(2, 2), randn(2, 2)
    Cs, Ct = ra @ ra.T + 0.5 * torch.eye(2), rb @ rb.T + 0.5 * torch.eye(2)
    V = randn(3, 6)
    pool = {
        "a": a, "b": b, "M": M, "B": hist(M_, 3), "xs": xs, "xt": xt, "ys": torch.tensor([0, 1, 2, 0, 1, 2, 0]),
        "ws": (torch.zeros(N), torch.zeros(M_)), "C1": C1, "C2": C2, "A": A, "Mg": Mg,
        "w3": torch.tensor([0.2, 0.3, 0.5]), "imgs": imgs, "u": randn(N), "v": randn(M_) + 0.5, "su": rand(N),
        "sv": rand(M_), "ss": ss, "st": st, "ms": randn(2), "mt": randn(2) + 1.0, "Cs": Cs, "Ct": Ct,
        "Mb": torch.stack([M, M.flip(0)]),
        "V": V, "Vt": V.T.contiguous(), "P": torch.nn.functional.normalize(randn(D, 12), dim=0),
    }
    return pool


def _object(name: str) -> Any:
    """Objects the fixed keywords name: the quadratic regularizer and its gradient of ``ot.optim``
    (``f(G) = ||G||^2 / 2``, as POT's examples write it) and an Armijo line search given as
    ``line_search`` (the form ``ot.optim.generic_conditional_gradient`` documents)."""
    import ot

    def f(G: Any) -> Any:
        return 0.5 * (G ** 2).sum()

    def df(G: Any) -> Any:
        return G

    def armijo(cost: Any, G: Any, deltaG: Any, Mi: Any, cost_G: Any, df_G: Any, **kwargs: Any) -> Any:
        return ot.optim.line_search_armijo(cost, G, deltaG, Mi, cost_G, **kwargs)

    return {"f": f, "df": df, "armijo": armijo}[name]


def _call(name: str) -> Built:
    import importlib

    module, function, inputs, static = CALLS[name]
    fn = getattr(importlib.import_module(module), function)
    pool = _pool()
    static = dict(static)
    attr = static.pop("_attr", None)
    for key, value in list(static.items()):
        if isinstance(value, str) and value.startswith("@"):
            static[key] = _object(value[1:])
    keys = [i.split("=", 1) for i in inputs]
    args = tuple(pool[k[-1]] for k in keys)
    slots = [k[0] if len(k) == 2 else None for k in keys]

    if all(s is None for s in slots) and attr is None:
        from gt_calls import Call

        return Call(fn, **static), args, {}
    return _Keyed(fn, slots, static, attr), args, {}


def _Keyed(function: Any, slots: list[str | None], static: dict[str, Any], attr: str | None) -> Any:
    """A library function under a module's interface: its inputs go positionally, or by keyword where
    ``slots`` names one; ``attr`` is the attribute of the result (an ``OTResult``) the user reads."""
    from torch import nn

    class Keyed(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.function = function

        def forward(self, *inputs: Any) -> Any:
            positional: list[Any] = []
            keywords: dict[str, Any] = {}
            for slot, value in zip(slots, inputs):
                if slot is None:
                    positional.append(value)
                else:
                    keywords[slot] = value
            result = self.function(*positional, **keywords, **static)
            return result if attr is None else getattr(result, attr)

        def entry_points(self) -> list[Any]:
            return [self.function]

    return Keyed()


def _da(name: str) -> Built:
    import ot
    from torch import nn

    cls_name, keywords, labels = DA[name]
    cls = getattr(ot.da, cls_name)
    pool = _pool()

    class Adapt(nn.Module):
        """``fit`` on the batch's source and target samples (and the source labels where given), then
        ``transform`` of the source samples into the target domain."""

        def __init__(self) -> None:
            super().__init__()
            self.estimator = cls(**keywords)

        def forward(self, xs: Any, xt: Any, *ys: Any) -> Any:
            self.estimator.fit(Xs=xs, ys=ys[0] if ys else None, Xt=xt)
            return self.estimator.transform(Xs=xs)

        def entry_points(self) -> list[Any]:
            return [cls.fit, cls.transform]

    args = (pool["xs"], pool["xt"]) + ((pool["ys"],) if labels else ())
    return Adapt(), args, {}


def _gnn(name: str) -> Built:
    import torch
    from ot import gnn

    cls_name, keywords = GNN[name]
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(7, 3, generator=gen)
    edge_index = torch.tensor([[0, 1, 1, 2, 2, 3, 4, 5, 5, 6], [1, 0, 2, 1, 3, 2, 5, 4, 6, 5]])
    batch = torch.tensor([0, 0, 0, 0, 1, 1, 1])
    return getattr(gnn, cls_name)(**keywords), (x, edge_index, batch), {}


def _train(name: str) -> Built:
    import ot
    import torch
    from torch import nn

    pool = _pool()
    kind = name.split(".", 1)[1]
    entries = {"sinkhorn2": [ot.sinkhorn2], "emd2": [ot.emd2], "deepjdot": [ot.emd],
               "sliced": [ot.sliced_wasserstein_distance], "gromov_wasserstein2": [ot.gromov_wasserstein2],
               "fused_gromov_wasserstein2": [ot.fused_gromov_wasserstein2],
               "sinkhorn_unbalanced2": [ot.sinkhorn_unbalanced2],
               "empirical_sinkhorn_divergence": [ot.bregman.empirical_sinkhorn_divergence],
               "solve_sample": [ot.solve_sample], "wasserstein_1d": [ot.wasserstein_1d]}[kind]

    class Loss(nn.Module):
        """A tiny generator (noise -> 2-D points) and learnable structure ``C``, and an OT loss between the
        generated samples and the target samples ``xt`` with weights ``b``, as POT's torch examples train
        them (``ot.dist`` and ``ot.unif`` build the cost and the source weights)."""

        def __init__(self) -> None:
            super().__init__()
            self.generator = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, D))
            self.C = nn.Parameter(pool["C1"].clone())

        def forward(self, noise: Any, xt: Any, b: Any) -> Any:
            x = self.generator(noise)
            a = ot.unif(x.shape[0], type_as=x)
            if kind == "sinkhorn2":
                return ot.sinkhorn2(a, b, ot.dist(x, xt), 0.1, numItermax=50)
            if kind == "emd2":
                return ot.emd2(a, b, ot.dist(x, xt))
            if kind == "deepjdot":  # the plan on a detached cost, then the cost weighted by it
                M = ot.dist(x, xt)
                G = ot.emd(a, b, M.detach())
                return (G * M).sum()
            if kind == "sliced":
                return ot.sliced_wasserstein_distance(x, xt, a, b, n_projections=20, seed=0)
            if kind == "gromov_wasserstein2":
                C = (self.C + self.C.T) / 2
                return ot.gromov_wasserstein2(C, ot.dist(xt, xt), a, b, max_iter=10)
            if kind == "fused_gromov_wasserstein2":
                C = (self.C + self.C.T) / 2
                return ot.fused_gromov_wasserstein2(ot.dist(x, xt), C, ot.dist(xt, xt), a, b, alpha=0.5,
                                                    max_iter=10)
            if kind == "sinkhorn_unbalanced2":
                return ot.sinkhorn_unbalanced2(a, b, ot.dist(x, xt), 0.1, 1.0, numItermax=50)
            if kind == "empirical_sinkhorn_divergence":
                return ot.bregman.empirical_sinkhorn_divergence(x, xt, 0.1, b=b, numIterMax=30)
            if kind == "solve_sample":
                return ot.solve_sample(x, xt, a, b, reg=0.1, max_iter=50).value
            return ot.wasserstein_1d(x[:, 0], xt[:, 0], a, b, p=2)

        def entry_points(self) -> list[Any]:
            return entries

    noise = torch.randn(N, 4, generator=torch.Generator().manual_seed(3))
    return Loss(), (noise, pool["xt"], pool["b"]), {}


def build(name: str) -> Built:
    import torch

    torch.manual_seed(0)
    if name in CALLS:
        return _call(name)
    if name in DA:
        return _da(name)
    if name in GNN:
        return _gnn(name)
    return _train(name)
