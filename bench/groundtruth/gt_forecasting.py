"""Ground-truth bench, pytorch_forecasting: its forecasting networks on a dataset batch, and its metrics.

Models are built the way its tutorials build them: a ``TimeSeriesDataSet`` over a small pandas
DataFrame made in code (``DATASETS``: three series of 30 steps, with static and time-varying,
categorical and real covariates, or the target alone), then ``<Model>.from_dataset(dataset, ...)``
with small hyperparameters (``MODELS``), and the model is compiled on the dictionary batch its
dataloader yields. ``METRICS`` are the losses and metrics of ``pytorch_forecasting.metrics``,
compiled as modules (``Metric.forward`` updates the state and computes the batch's value, as a
model's training step calls its loss). Point and quantile metrics get predictions of the batch's
shape; distribution losses get the rescaled parameters that a ``DeepAR`` with that loss predicts
(what its training step hands them). Random weights, nothing downloaded. ``names()`` needs no torch;
``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
ENCODER, HORIZON, BATCH = 8, 4, 4

# Model name -> (class in ``pytorch_forecasting.models``, dataset kind, ``from_dataset`` keywords).
# A keyword ``loss`` names a class of ``pytorch_forecasting.metrics`` (the table is plain data).
MODELS: dict[str, tuple[str, str, dict[str, Any]]] = {
    "TemporalFusionTransformer": ("TemporalFusionTransformer", "covariates",
                                  {"hidden_size": 8, "attention_head_size": 2, "hidden_continuous_size": 4}),
    "TemporalFusionTransformer.shared_networks": ("TemporalFusionTransformer", "covariates",
                                                  {"hidden_size": 8, "attention_head_size": 2,
                                                   "hidden_continuous_size": 4,
                                                   "share_single_variable_networks": True}),
    "TemporalFusionTransformer.normal": ("TemporalFusionTransformer", "covariates",
                                         {"hidden_size": 8, "attention_head_size": 1, "hidden_continuous_size": 4,
                                          "loss": "NormalDistributionLoss"}),
    "DeepAR": ("DeepAR", "covariates", {"hidden_size": 8, "rnn_layers": 2}),
    "DeepAR.gru": ("DeepAR", "covariates", {"hidden_size": 8, "rnn_layers": 1, "cell_type": "GRU"}),
    "DeepAR.lognormal": ("DeepAR", "positive", {"hidden_size": 8, "loss": "LogNormalDistributionLoss"}),
    "DeepAR.multivariate": ("DeepAR", "covariates", {"hidden_size": 8,
                                                     "loss": "MultivariateNormalDistributionLoss"}),
    "RecurrentNetwork": ("RecurrentNetwork", "covariates", {"hidden_size": 8, "rnn_layers": 2}),
    "RecurrentNetwork.gru": ("RecurrentNetwork", "covariates", {"hidden_size": 8, "cell_type": "GRU"}),
    "DecoderMLP": ("DecoderMLP", "covariates", {"hidden_size": 8, "n_hidden_layers": 2}),
    "DecoderMLP.quantiles": ("DecoderMLP", "covariates", {"hidden_size": 8, "loss": "QuantileLoss"}),
    "NBeats.interpretable": ("NBeats", "univariate", {"stack_types": ["trend", "seasonality"], "num_blocks": [1, 1],
                                                      "num_block_layers": [1, 1], "widths": [8, 8],
                                                      "expansion_coefficient_lengths": [3, 3]}),
    "NBeats.generic": ("NBeats", "univariate", {"stack_types": ["generic"], "num_blocks": [2],
                                                "num_block_layers": [2], "widths": [8],
                                                "expansion_coefficient_lengths": [4]}),
    "NBeatsKAN": ("NBeatsKAN", "univariate", {"stack_types": ["trend", "seasonality"], "num_blocks": [1, 1],
                                              "num_block_layers": [1, 1], "widths": [8, 8],
                                              "expansion_coefficient_lengths": [3, 3]}),
    "NHiTS": ("NHiTS", "plain_covariates", {"hidden_size": 8, "n_blocks": [1, 1], "n_layers": 1,
                                      "pooling_sizes": [2, 1], "downsample_frequencies": [2, 1]}),
    "NHiTS.univariate": ("NHiTS", "univariate", {"hidden_size": 8}),
    "TiDEModel": ("TiDEModel", "plain_covariates", {"hidden_size": 8, "decoder_output_dim": 4,
                                              "temporal_width_future": 2, "temporal_hidden_size_future": 8,
                                              "temporal_decoder_hidden": 8}),
    "TimeXer": ("TimeXer", "covariates", {"hidden_size": 8, "n_heads": 2, "e_layers": 1, "d_ff": 16,
                                          "patch_length": 4}),
    "xLSTMTime.slstm": ("xLSTMTime", "covariates", {"hidden_size": 8, "xlstm_type": "slstm",
                                                    "decomposition_kernel": 3}),
    "xLSTMTime.mlstm": ("xLSTMTime", "covariates", {"hidden_size": 8, "xlstm_type": "mlstm",
                                                    "decomposition_kernel": 3}),
    "Baseline": ("Baseline", "covariates", {}),
}
# Metric name -> (class in ``pytorch_forecasting.metrics``, prediction kind, constructor keywords).
METRICS: dict[str, tuple[str, str, dict[str, Any]]] = {
    "MAE": ("MAE", "point", {}), "MAPE": ("MAPE", "point", {}), "SMAPE": ("SMAPE", "point", {}),
    "RMSE": ("RMSE", "point", {}), "MASE": ("MASE", "point", {}), "PoissonLoss": ("PoissonLoss", "point", {}),
    "TweedieLoss": ("TweedieLoss", "point", {}), "QuantileLoss": ("QuantileLoss", "quantiles", {}),
    "CrossEntropy": ("CrossEntropy", "classes", {}), "MAE.mean_reduction": ("MAE", "point", {"reduction": "mean"}),
    "SMAPE.sqrt_mean": ("SMAPE", "point", {"reduction": "sqrt-mean"}),
    "CompositeMetric": ("MAE", "composite", {}), "MultiLoss": ("MultiLoss", "multi", {}),
    "NormalDistributionLoss": ("NormalDistributionLoss", "distribution", {}),
    "LogNormalDistributionLoss": ("LogNormalDistributionLoss", "distribution", {}),
    "BetaDistributionLoss": ("BetaDistributionLoss", "distribution", {}),
    "NegativeBinomialDistributionLoss": ("NegativeBinomialDistributionLoss", "distribution", {}),
    "MultivariateNormalDistributionLoss": ("MultivariateNormalDistributionLoss", "distribution", {}),
    "ImplicitQuantileNetworkDistributionLoss": ("ImplicitQuantileNetworkDistributionLoss", "distribution", {}),
}
# Distribution losses whose DeepAR needs a strictly positive target, or one in (0, 1).
DATASET_OF_LOSS = {"LogNormalDistributionLoss": "positive", "NegativeBinomialDistributionLoss": "counts",
                   "BetaDistributionLoss": "fraction"}


def names() -> list[str]:
    return [f"model.{n}" for n in MODELS] + [f"metric.{n}" for n in METRICS]


def frame(kind: str) -> Any:
    """Three series of 30 steps: a noisy sine with a real and a categorical covariate and static columns."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(0)
    steps = np.arange(30)
    frames = []
    for series in range(3):
        value = np.sin(steps / 3 + series) + rng.normal(0, 0.1, 30)
        if kind in ("positive", "counts"):
            value = np.round(value * 3 + 5) if kind == "counts" else np.exp(value)
        if kind == "fraction":
            value = 1 / (1 + np.exp(-value))
        frames.append(pd.DataFrame({"series": str(series), "time_idx": steps, "value": value,
                                    "temperature": rng.normal(size=30), "month": (steps % 12).astype(str),
                                    "region": str(series % 2), "size": float(series)}))
    return pd.concat(frames, ignore_index=True)


def dataset(kind: str) -> Any:
    """The ``TimeSeriesDataSet`` of one kind: ``univariate`` has the target only (what N-BEATS takes),
    ``plain_covariates`` has no relative time index (what N-HiTS and TiDE take), and ``positive``,
    ``counts`` and ``fraction`` have targets in the support of a distribution loss."""
    from pytorch_forecasting import TimeSeriesDataSet
    from pytorch_forecasting.data import EncoderNormalizer, GroupNormalizer

    common = {"time_idx": "time_idx", "target": "value", "group_ids": ["series"], "max_encoder_length": ENCODER,
              "max_prediction_length": HORIZON}
    if kind == "univariate":
        return TimeSeriesDataSet(frame(kind), **common, time_varying_unknown_reals=["value"])
    transformation = {"positive": "log", "counts": "softplus", "fraction": "logit"}.get(kind)
    normalizer = (EncoderNormalizer(transformation=transformation) if kind == "fraction"
                  else GroupNormalizer(groups=["series"], transformation=transformation))
    if kind == "counts":
        normalizer = GroupNormalizer(groups=["series"], center=False)
    return TimeSeriesDataSet(
        frame(kind), **common, static_categoricals=["region"], static_reals=["size"],
        time_varying_known_categoricals=["month"], time_varying_known_reals=["time_idx", "temperature"],
        time_varying_unknown_reals=["value"], target_normalizer=normalizer,
        add_relative_time_idx=kind != "plain_covariates",
        add_target_scales=True, add_encoder_length=True)


def batch(data: Any) -> tuple[dict[str, Any], tuple[Any, Any]]:
    """The first validation batch of ``BATCH`` samples: the input dictionary and ``(target, weight)``."""
    import torch

    torch.manual_seed(0)
    return next(iter(data.to_dataloader(train=False, batch_size=BATCH, num_workers=0)))


def model(name: str) -> tuple[Any, dict[str, Any], tuple[Any, Any]]:
    """``MODELS[name]`` built from its dataset, with that dataset's first batch."""
    from pytorch_forecasting import metrics, models

    cls, kind, keywords = MODELS[name]
    keywords = dict(keywords)
    if "loss" in keywords:
        keywords["loss"] = getattr(metrics, keywords["loss"])()
    data = dataset(kind)
    if cls == "xLSTMTime":  # its ``from_dataset`` leaves the width of ``encoder_cont`` and the horizon to the user
        keywords.update(input_size=len(data.reals), output_size=HORIZON)
    return getattr(models, cls).from_dataset(data, **keywords), *batch(data)


def _metric(name: str) -> Built:
    import torch
    from pytorch_forecasting import DeepAR, metrics

    cls, kind, keywords = METRICS[name]
    gen = torch.Generator().manual_seed(0)
    target = torch.rand(BATCH, HORIZON, generator=gen) + 0.5
    args: tuple[Any, ...]
    if kind == "distribution":  # the parameters a DeepAR with this loss predicts for the batch
        data = dataset(DATASET_OF_LOSS.get(cls, "covariates"))
        loss = getattr(metrics, cls)(**keywords)
        network = DeepAR.from_dataset(data, hidden_size=8, loss=loss)
        x, y = batch(data)
        with torch.no_grad():
            args = (network(x)["prediction"], y)
        metric = loss
    else:
        metric = getattr(metrics, cls)(**keywords) if kind != "multi" else metrics.MultiLoss(
            [metrics.MAE(), metrics.SMAPE()], weights=[1.0, 0.5])
        point = torch.rand(BATCH, HORIZON, generator=gen) + 0.5
        if kind == "composite":  # a sum of metrics built with operators, as users combine them
            metric = metrics.MAE() + 0.5 * metrics.RMSE()
        args = {"point": (point, target), "composite": (point, target),
                "quantiles": (torch.rand(BATCH, HORIZON, 7, generator=gen).sort(-1).values, target),
                "classes": (torch.randn(BATCH, HORIZON, 3, generator=gen),
                            torch.randint(0, 3, (BATCH, HORIZON), generator=gen)),
                "multi": ([point, point + 0.1], ([target, target], None))}[kind]
        if cls == "MASE":  # scaled by the in-sample naive error of each series' encoder
            args = (*args, torch.rand(BATCH, ENCODER, generator=gen), torch.full((BATCH,), ENCODER))
    # One eager call first, as a training loop would have made (torchmetrics settles its lazy
    # requirement checks on first use), then a fresh state.
    metric(*args)
    metric.reset()
    return metric, args, {}


def build(name: str) -> Built:
    import warnings

    import torch
    from gt_models import allow_torchvision_import

    allow_torchvision_import()  # lightning imports torchvision
    warnings.filterwarnings("ignore")  # lightning's notes on hyperparameters saved with modules
    torch.manual_seed(0)
    group, item = name.split(".", 1)
    if group == "metric":
        return _metric(item)
    network, x, _ = model(item)
    return network, (x,), {}
