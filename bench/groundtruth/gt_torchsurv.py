"""Ground-truth bench, torchsurv: survival-analysis losses, metrics and statistics in PyTorch.

torchsurv gives the losses to train a network that predicts survival from covariates, the metrics to
evaluate it with censored data and the statistics both rest on. Everything works on a batch of event
indicators (bool) and event or censoring times (float), so every model here draws 8 subjects with tied
times among them, 4 covariates and a tiny network (``Linear(4, 8)``, ReLU, ``Linear(8, k)``). The tables cover:

- ``LOSSES``: a train step (the network's output, then the loss) for the Cox partial likelihood
  (``neg_partial_log_likelihood``: Efron and Breslow ties, sum reduction, strata, distinct times without
  ties, time-varying log hazards of shape ``N x N``), the Weibull likelihood (``neg_log_likelihood_weibull``
  with scale and shape, with the scale alone, sum reduction) and the discrete-time likelihood
  (``neg_log_likelihood`` with log hazards on a grid of evaluation times); ``Momentum`` (the memory bank of
  a momentum-encoded backbone, with the Cox and the Weibull losses, its forward and ``infer``);
- ``FUNCTIONS``: what users call to predict survival: ``baseline_survival_function`` (plain and stratified),
  ``survival_function_cox`` (plain and stratified), ``log_hazard`` (on a grid and at each subject's time),
  ``survival_function_weibull`` and ``survival_function``;
- ``METRICS``: ``ConcordanceIndex`` (plain, with IPCW weights, with ``tmax``), ``Auc`` (cumulative and
  incident, at given times, with weights) and ``BrierScore`` (at given times, with weights) called on the
  network's estimates, and the methods called on an evaluated metric: ``integral``, ``confidence_interval``,
  ``p_value`` and ``compare`` in their analytic methods (Noether, conservative, Blanche, parametric) and
  with a few bootstrap samples;
- ``STATS``: ``KaplanMeierEstimator`` (called, as a censoring distribution, then ``predict`` at new times)
  and ``get_ipcw`` (at the subjects' times and at new times).

The input validators (pydantic models in ``tools``) run inside each call as users meet them. Plotting and
pandas tables are left out. Random weights, nothing downloaded. ``names()`` needs no torch; ``build`` runs
in a worker only (torchsurv imports torchmetrics, whose import reaches torchvision, so it runs after
``gt_models.allow_torchvision_import``).

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
N, FEATURES, HIDDEN, BOOT = 8, 4, 8, 5

# Loss train step -> (loss, network outputs, keywords). "strata" stands for a stratum per subject.
LOSSES: dict[str, tuple[str, int, dict[str, Any]]] = {
    "cox.efron": ("cox", 1, {}),
    "cox.breslow": ("cox", 1, {"ties_method": "breslow"}),
    "cox.sum": ("cox", 1, {"reduction": "sum"}),
    "cox.strata": ("cox", 1, {"strata": "strata"}),
    "cox.no_ties": ("cox", 1, {"ties": False}),
    "cox.time_varying": ("cox", N, {}),
    "weibull": ("weibull", 2, {}),
    "weibull.scale_only": ("weibull", 1, {}),
    "weibull.sum": ("weibull", 2, {"reduction": "sum"}),
    "survival": ("survival", 4, {}),
    "survival.sum": ("survival", 4, {"reduction": "sum"}),
}
MOMENTUM = ("Momentum.cox", "Momentum.weibull", "Momentum.infer")
FUNCTIONS = (
    "baseline_survival_function", "baseline_survival_function.strata", "survival_function_cox",
    "survival_function_cox.strata", "log_hazard", "log_hazard.respective_times", "survival_function_weibull",
    "survival_function",
)
# Metric call -> (metric, estimate kind, keywords). "ipcw" weights come from ``get_ipcw``.
METRIC_CALLS: dict[str, tuple[str, str, dict[str, Any]]] = {
    "ConcordanceIndex": ("ConcordanceIndex", "risk", {}),
    "ConcordanceIndex.weight": ("ConcordanceIndex", "risk", {"weight": "ipcw"}),
    "ConcordanceIndex.tmax": ("ConcordanceIndex", "risk", {"tmax": "tmax"}),
    "Auc.cumulative": ("Auc", "risk", {}),
    "Auc.incident": ("Auc", "risk", {"auc_type": "incident"}),
    "Auc.new_time": ("Auc", "risk_grid", {"new_time": "grid"}),
    "Auc.weight": ("Auc", "risk", {"weight": "ipcw", "new_time": "grid1", "weight_new_time": "ipcw_grid1"}),
    "BrierScore": ("BrierScore", "survival_grid", {"new_time": "grid"}),
    "BrierScore.weight": ("BrierScore", "survival_grid", {"new_time": "grid", "weight": "ipcw",
                                                          "weight_new_time": "ipcw_grid"}),
}
# Method on an evaluated metric -> (metric call it follows, method, keywords).
METRIC_METHODS: dict[str, tuple[str, str, dict[str, Any]]] = {
    "ConcordanceIndex.confidence_interval.noether": ("ConcordanceIndex", "confidence_interval", {}),
    "ConcordanceIndex.confidence_interval.conservative": ("ConcordanceIndex", "confidence_interval",
                                                          {"method": "conservative"}),
    "ConcordanceIndex.confidence_interval.bootstrap": ("ConcordanceIndex", "confidence_interval",
                                                       {"method": "bootstrap", "n_bootstraps": BOOT}),
    "ConcordanceIndex.p_value.noether": ("ConcordanceIndex", "p_value", {"alternative": "greater"}),
    "ConcordanceIndex.p_value.bootstrap": ("ConcordanceIndex", "p_value", {"method": "bootstrap",
                                                                           "n_bootstraps": BOOT}),
    "ConcordanceIndex.compare.noether": ("ConcordanceIndex", "compare", {}),
    "ConcordanceIndex.compare.bootstrap": ("ConcordanceIndex", "compare", {"method": "bootstrap",
                                                                           "n_bootstraps": BOOT}),
    "Auc.integral": ("Auc.new_time", "integral", {}),
    "Auc.confidence_interval.blanche": ("Auc.new_time", "confidence_interval", {}),
    "Auc.confidence_interval.bootstrap": ("Auc.new_time", "confidence_interval", {"method": "bootstrap",
                                                                                  "n_bootstraps": BOOT}),
    "Auc.p_value.blanche": ("Auc.new_time", "p_value", {"alternative": "less"}),
    "Auc.compare.blanche": ("Auc.new_time", "compare", {}),
    "Auc.compare.bootstrap": ("Auc.new_time", "compare", {"method": "bootstrap", "n_bootstraps": BOOT}),
    "BrierScore.integral": ("BrierScore", "integral", {}),
    "BrierScore.confidence_interval.parametric": ("BrierScore", "confidence_interval", {}),
    "BrierScore.confidence_interval.bootstrap": ("BrierScore", "confidence_interval", {"method": "bootstrap",
                                                                                       "n_bootstraps": BOOT}),
    "BrierScore.p_value.parametric": ("BrierScore", "p_value", {"method": "parametric", "null_value": 0.25}),
    "BrierScore.p_value.bootstrap": ("BrierScore", "p_value", {"n_bootstraps": BOOT}),
    "BrierScore.compare.parametric": ("BrierScore", "compare", {}),
}
STATS = ("KaplanMeierEstimator", "KaplanMeierEstimator.censoring_dist", "KaplanMeierEstimator.predict",
         "get_ipcw", "get_ipcw.new_time")


def names() -> list[str]:
    return ([f"loss.{n}" for n in LOSSES] + list(MOMENTUM) + list(FUNCTIONS) + list(METRIC_CALLS)
            + list(METRIC_METHODS) + list(STATS))


def _data(seed: int = 0, ties: bool = True) -> dict[str, Any]:
    """Covariates, events, times (tied pairs unless ``ties`` is off), strata and evaluation grids."""
    import torch

    gen = torch.Generator().manual_seed(seed)
    event = torch.tensor([True, False, True, True, False, True, True, False])
    if ties:
        time = torch.tensor([2.0, 3.0, 3.0, 5.0, 6.0, 6.0, 8.0, 9.0])
    else:
        time = torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.5])
    return {"x": torch.randn(N, FEATURES, generator=gen), "event": event, "time": time,
            "strata": torch.tensor([0, 1, 0, 1, 0, 1, 0, 1]), "grid": torch.tensor([3.0, 5.0, 7.0, 8.0]),
            "grid1": torch.tensor([5.0]), "new_time": torch.tensor([1.0, 4.0, 6.5, 10.0])}


def _net(outputs: int) -> Any:
    from torch import nn

    return nn.Sequential(nn.Linear(FEATURES, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, outputs))


def _loss_step(name: str) -> Built:
    import torch
    from torch import nn
    from torchsurv.loss import cox, survival, weibull

    kind, outputs, keywords = LOSSES[name]
    keywords = dict(keywords)
    data = _data(ties=keywords.pop("ties", True))
    if keywords.get("strata") == "strata":
        keywords["strata"] = data["strata"]
    loss: Any = {"cox": cox.neg_partial_log_likelihood, "weibull": weibull.neg_log_likelihood_weibull,
                 "survival": survival.neg_log_likelihood}[kind]
    if kind == "survival":
        keywords["eval_time"] = data["grid"]
    net = _net(outputs)

    class _Step(nn.Module):
        """A train step's forward: the network's log hazards (or log parameters) and the loss."""

        def __init__(self) -> None:
            super().__init__()
            self.net = net

        def forward(self, x: torch.Tensor, event: torch.Tensor, time: torch.Tensor) -> torch.Tensor:
            out = self.net(x)
            if outputs == N:  # time-varying log hazards: subject i's at subject j's time (equal at equal times)
                out = out[:, :1] + 0.1 * time.unsqueeze(0)
            return loss(out.squeeze(-1) if outputs == 1 else out, event, time, **keywords)

        def entry_points(self) -> list[Any]:
            return [loss]

    return _Step(), (data["x"], data["event"], data["time"]), {}


def _momentum(name: str) -> Built:
    from torchsurv.loss import cox, weibull
    from torchsurv.loss.momentum import Momentum

    from gt_calls import Method

    data = _data()
    if name == "Momentum.weibull":
        model = Momentum(_net(2), loss=weibull.neg_log_likelihood_weibull, batchsize=N, steps=2)
    else:
        model = Momentum(_net(1), loss=cox.neg_partial_log_likelihood, batchsize=N, steps=2)
    if name == "Momentum.infer":
        model(data["x"], data["event"], data["time"])
        return Method(model, "infer"), (data["x"],), {}
    return model, (data["x"], data["event"], data["time"]), {}


def _function(name: str) -> Built:
    import torch
    from torchsurv.loss import cox, survival, weibull

    from gt_calls import Call

    data = _data()
    gen = torch.Generator().manual_seed(3)
    log_hz = torch.randn(N, generator=gen)
    if name.startswith("baseline_survival_function"):
        strata = {"strata": data["strata"]} if name.endswith("strata") else {}
        return Call(cox.baseline_survival_function, **strata), (log_hz, data["event"], data["time"]), {}
    if name.startswith("survival_function_cox"):
        new_log_hz = torch.randn(3, generator=gen)
        if name.endswith("strata"):
            baseline = cox.baseline_survival_function(log_hz, data["event"], data["time"], strata=data["strata"])
            return (Call(cox.survival_function_cox, new_strata=torch.tensor([0, 1, 1])),
                    (baseline, new_log_hz, data["new_time"]), {})
        baseline = cox.baseline_survival_function(log_hz, data["event"], data["time"])
        return Call(cox.survival_function_cox), (baseline, new_log_hz, data["new_time"]), {}
    log_params = torch.randn(N, 2, generator=gen) * 0.3
    if name == "log_hazard":
        return Call(weibull.log_hazard), (log_params, data["new_time"]), {}
    if name == "log_hazard.respective_times":
        return Call(weibull.log_hazard, respective_times=True), (log_params, data["time"]), {}
    if name == "survival_function_weibull":
        return Call(weibull.survival_function_weibull), (log_params, data["new_time"]), {}
    grid_log_hz = torch.randn(N, 4, generator=gen)
    return Call(survival.survival_function), (grid_log_hz, data["new_time"], data["grid"]), {}


def _metric_inputs(call: str) -> tuple[Any, Any, dict[str, Any]]:
    """The metric, its positional inputs (estimate, event, time) and keywords for a ``METRIC_CALLS`` entry."""
    import torch
    from torchsurv import metrics
    from torchsurv.stats.ipcw import get_ipcw

    kind, estimate, keywords = METRIC_CALLS[call]
    data = _data()
    gen = torch.Generator().manual_seed(1)  # a draw whose concordance has a positive standard error
    values = {"risk": torch.randn(N, generator=gen),
              "risk_grid": torch.randn(N, 4, generator=gen),
              "survival_grid": torch.rand(N, 4, generator=gen).sort(dim=1, descending=True).values}
    derived = {"ipcw": lambda: get_ipcw(data["event"], data["time"]),
               "ipcw_grid": lambda: get_ipcw(data["event"], data["time"], data["grid"]),
               "ipcw_grid1": lambda: get_ipcw(data["event"], data["time"], data["grid1"]),
               "tmax": lambda: torch.tensor(7.0), "grid": lambda: data["grid"], "grid1": lambda: data["grid1"]}
    keywords = {k: derived[v]() if isinstance(v, str) and v in derived else v for k, v in keywords.items()}
    metric = getattr(metrics, kind)()
    return metric, (values[estimate], data["event"], data["time"]), keywords


def _metric_call(name: str) -> Built:
    from gt_calls import Keywords

    metric, inputs, keywords = _metric_inputs(name)

    class _MetricCall(Keywords):
        def entry_points(self) -> list[Any]:
            return [type(self.function).__call__]

    return _MetricCall(metric, **keywords), inputs, {}


def _metric_method(name: str) -> Built:
    import torch
    from torch import nn

    call, method, keywords = METRIC_METHODS[name]
    metric, inputs, call_keywords = _metric_inputs(call)
    metric(*inputs, **call_keywords)
    if method == "compare":
        other, _, _ = _metric_inputs(call)
        estimate = inputs[0] + 0.5 * torch.randn(inputs[0].shape, generator=torch.Generator().manual_seed(9))
        if call == "BrierScore":
            estimate = estimate.clamp(0.0, 1.0)
        other(estimate, *inputs[1:], **call_keywords)
        keywords = {"other": other, **keywords}

    class _MetricMethod(nn.Module):
        """A method called on an evaluated metric (its state kept from the call in the builder)."""

        def __init__(self) -> None:
            super().__init__()
            self.metric = metric

        def forward(self) -> Any:
            torch.manual_seed(0)
            return getattr(self.metric, method)(**keywords)

        def entry_points(self) -> list[Any]:
            return [getattr(type(self.metric), method)]

    return _MetricMethod(), (), {}


def _stats(name: str) -> Built:
    from torch import nn
    from torchsurv.stats.ipcw import get_ipcw
    from torchsurv.stats.kaplan_meier import KaplanMeierEstimator

    from gt_calls import Call

    data = _data()
    if name == "get_ipcw":
        return Call(get_ipcw), (data["event"], data["time"]), {}
    if name == "get_ipcw.new_time":
        return Call(get_ipcw), (data["event"], data["time"], data["new_time"]), {}
    km = KaplanMeierEstimator()
    if name == "KaplanMeierEstimator.predict":
        km(data["event"], data["time"])

        class _Predict(nn.Module):
            def forward(self, new_time: Any) -> Any:
                return km.predict(new_time)

            def entry_points(self) -> list[Any]:
                return [KaplanMeierEstimator.predict]

        return _Predict(), (data["new_time"],), {}
    censoring = name.endswith("censoring_dist")

    class _Fit(nn.Module):
        """Fit the estimator, then read the survival it estimated."""

        def forward(self, event: Any, time: Any) -> Any:
            km(event, time, censoring_dist=censoring)
            return km.km_est

        def entry_points(self) -> list[Any]:
            return [KaplanMeierEstimator.__call__]

    return _Fit(), (data["event"], data["time"]), {}


def build(name: str) -> Built:
    import warnings

    import torch

    import gt_models

    warnings.filterwarnings("ignore")
    gt_models.allow_torchvision_import()
    torch.manual_seed(0)
    if name.startswith("loss."):
        return _loss_step(name[len("loss."):])
    if name in MOMENTUM:
        return _momentum(name)
    if name in FUNCTIONS:
        return _function(name)
    if name in METRIC_CALLS:
        return _metric_call(name)
    if name in METRIC_METHODS:
        return _metric_method(name)
    if name in STATS:
        return _stats(name)
    raise KeyError(name)
