"""Ground-truth bench, neuralforecast: every forecasting model of ``neuralforecast.models``, its loss and predict steps.

A neuralforecast model is a Lightning module whose ``forward`` takes a ``windows_batch`` dictionary
(``insample_y``, ``insample_mask``, ``futr_exog``, ``hist_exog``, ``stat_exog``); Lightning's compile
of a model compiles that forward, and the model's ``training_step`` / ``predict_step`` call it from
eager code that cuts windows out of a ``TimeSeriesLoader`` batch (pandas column indexes, random window
sampling, normalisation). So each model of ``MODELS`` (each class of ``neuralforecast.models`` at tiny
sizes, ``h=4``, ``input_size=8``, with one future, one historical and one static exogenous variable
wherever the class accepts them, as the library's tests build them) is compiled three ways:

- ``<Model>``: the model's own ``forward`` on the windows of a training step;
- ``<Model>.train_step``: bench code (``_TrainStep``) that runs what ``BaseModel.training_step`` runs
  on the parsed windows: ``forward``, ``loss.domain_map``, then the loss (through ``scale_decouple``
  for a distribution loss);
- ``<Model>.predict_step``: the library's ``_predict_step_direct_batch`` (or, for recurrent models,
  ``_predict_step_recurrent_batch``, the horizon loop that feeds each forecast back) on the windows of
  a prediction, through ``Method``; the model stays in eval mode there, as Lightning predicts.

The windows are made eagerly, in ``build``, by the model's own ``_create_windows``, ``_sample_windows``,
``_normalization`` and ``_parse_windows`` from a batch shaped as ``TimeSeriesLoader`` yields it (three
series of 24 steps, the target first and ``available_mask`` last), so their shapes are the library's.
``LOSSES`` are the training losses of ``neuralforecast.losses.pytorch`` (point, quantile, implicit
quantile, parametric distributions and mixtures), each trained on an ``MLP`` (``MLP.<loss>.train_step``)
and, where its predict step differs from a point forecast's (several outputs, sampling), predicted
(``MLP.<loss>.predict_step``). ``SCALERS`` are the ``TemporalNorm`` types that normalise every window:
``transform`` then ``inverse_transform``. Left out: ``HINT`` (not a module: a reconciliation wrapper in
numpy around another model), ``TimeLLM`` (needs ``transformers`` and downloads GPT-2) and ``xLSTM``
(needs the ``xlstm`` package); neither package is installed. ``relMSE``, ``Accuracy`` and ``sCRPS``
cannot be training losses (the library refuses them). Random weights, nothing downloaded.
``names()`` needs no torch; ``build(name)`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
H, INPUT, SERIES, STEPS, WINDOWS = 4, 8, 3, 24, 4  # horizon, lags, series, steps per series, windows per batch
FUTR, HIST, STAT = "calendar", "load", "market"  # the exogenous columns: future, historical, static

RNN_SIZES = {"encoder_n_layers": 1, "encoder_hidden_size": 8, "decoder_hidden_size": 8}
TRANSFORMER = {"hidden_size": 8, "n_head": 2, "conv_hidden_size": 8, "encoder_layers": 1, "decoder_layers": 1}
ITRANSFORMER = {"hidden_size": 8, "n_heads": 2, "e_layers": 1, "d_ff": 16}
# Model name -> (class of ``neuralforecast.models``, its keywords at tiny sizes). The name is the class,
# then a variant after a dot.
MODELS: dict[str, tuple[str, dict[str, Any]]] = {
    "RNN": ("RNN", RNN_SIZES),
    "RNN.recurrent": ("RNN", {**RNN_SIZES, "recurrent": True}),
    "GRU": ("GRU", RNN_SIZES),
    "GRU.recurrent": ("GRU", {**RNN_SIZES, "recurrent": True}),
    "LSTM": ("LSTM", RNN_SIZES),
    "LSTM.recurrent": ("LSTM", {**RNN_SIZES, "recurrent": True}),
    "TCN": ("TCN", {"kernel_size": 2, "dilations": [1, 2], "encoder_hidden_size": 8, "decoder_hidden_size": 8}),
    "DeepAR": ("DeepAR", {"lstm_n_layers": 1, "lstm_hidden_size": 8, "trajectory_samples": 8}),
    "DilatedRNN": ("DilatedRNN", {"dilations": [[1, 2]], "encoder_hidden_size": 8, "decoder_hidden_size": 8}),
    "MLP": ("MLP", {"num_layers": 2, "hidden_size": 8}),
    "NHITS": ("NHITS", {"mlp_units": [[8, 8]] * 3}),
    "NBEATS": ("NBEATS", {"mlp_units": [[8, 8]] * 3}),
    "NBEATSx": ("NBEATSx", {"mlp_units": [[8, 8]] * 3}),
    "DLinear": ("DLinear", {"moving_avg_window": 3}),
    "NLinear": ("NLinear", {}),
    "TFT": ("TFT", {"hidden_size": 8, "n_head": 2}),
    "VanillaTransformer": ("VanillaTransformer", TRANSFORMER),
    "Informer": ("Informer", TRANSFORMER),
    "Autoformer": ("Autoformer", {**TRANSFORMER, "MovingAvg_window": 3}),
    "FEDformer": ("FEDformer", {**TRANSFORMER, "hidden_size": 16, "n_head": 8, "modes": 2, "MovingAvg_window": 3}),
    "PatchTST": ("PatchTST", {"encoder_layers": 1, "n_heads": 2, "hidden_size": 8, "linear_hidden_size": 16,
                              "patch_len": 4, "stride": 2}),
    "StemGNN": ("StemGNN", {"n_stacks": 2, "multi_layer": 2}),
    "TimesNet": ("TimesNet", {"hidden_size": 8, "conv_hidden_size": 8, "top_k": 2, "num_kernels": 2,
                              "encoder_layers": 1}),
    "TSMixer": ("TSMixer", {"n_block": 1, "ff_dim": 8}),
    "TSMixerx": ("TSMixerx", {"n_block": 1, "ff_dim": 8}),
    "MLPMultivariate": ("MLPMultivariate", {"num_layers": 2, "hidden_size": 8}),
    "iTransformer": ("iTransformer", ITRANSFORMER),
    "BiTCN": ("BiTCN", {"hidden_size": 8}),
    "TiDE": ("TiDE", {"hidden_size": 8, "decoder_output_dim": 4, "temporal_decoder_dim": 8}),
    "DeepNPTS": ("DeepNPTS", {"hidden_size": 8, "n_layers": 1}),
    "SOFTS": ("SOFTS", {"hidden_size": 8, "d_core": 8, "e_layers": 1, "d_ff": 16}),
    "SOFTSSharp": ("SOFTSSharp", {"hidden_size": 8, "d_core": 8, "e_layers": 1, "d_ff": 16}),
    "TimeMixer": ("TimeMixer", {"d_model": 8, "d_ff": 8, "e_layers": 1, "top_k": 2, "moving_avg": 3}),
    "KAN": ("KAN", {"hidden_size": 8, "grid_size": 3}),
    "RMoK": ("RMoK", {"taylor_order": 2, "jacobi_degree": 2}),
    "TimeXer": ("TimeXer", {**ITRANSFORMER, "patch_len": 4}),
    "XLinear": ("XLinear", {"hidden_size": 8, "temporal_ff": 8, "channel_ff": 4}),
}
SAMPLES = {"num_samples": 8}  # draws of a probabilistic loss's predict step
# Loss name -> (class of ``neuralforecast.losses.pytorch``, its keywords), trained on an MLP. A loss whose
# predict step differs from a point forecast's is in PREDICTED too.
LOSSES: dict[str, tuple[str, dict[str, Any]]] = {
    "MSE": ("MSE", {}), "RMSE": ("RMSE", {}), "MAPE": ("MAPE", {}), "SMAPE": ("SMAPE", {}),
    "MASE": ("MASE", {"seasonality": 2}), "FreDF": ("FreDF", {}), "HuberLoss": ("HuberLoss", {}),
    "TukeyLoss": ("TukeyLoss", {}), "QuantileLoss": ("QuantileLoss", {"q": 0.5}),
    "HuberQLoss": ("HuberQLoss", {"q": 0.5}), "MAE.horizon_weight": ("MAE", {"horizon_weight": "ramp"}),
    "MQLoss": ("MQLoss", {"level": [80, 90]}), "HuberMQLoss": ("HuberMQLoss", {"level": [80]}),
    "IQLoss": ("IQLoss", {"cos_embedding_dim": 8}), "HuberIQLoss": ("HuberIQLoss", {"cos_embedding_dim": 8}),
    "DistributionLoss.Normal": ("DistributionLoss", {"distribution": "Normal", **SAMPLES}),
    "DistributionLoss.StudentT": ("DistributionLoss", {"distribution": "StudentT", **SAMPLES}),
    "DistributionLoss.Poisson": ("DistributionLoss", {"distribution": "Poisson", **SAMPLES}),
    "DistributionLoss.NegativeBinomial": ("DistributionLoss", {"distribution": "NegativeBinomial", **SAMPLES}),
    "DistributionLoss.Tweedie": ("DistributionLoss", {"distribution": "Tweedie", "rho": 1.5, **SAMPLES}),
    "DistributionLoss.ISQF": ("DistributionLoss", {"distribution": "ISQF", "num_pieces": 2, **SAMPLES}),
    "DistributionLoss.Normal.return_params": ("DistributionLoss", {"distribution": "Normal", "return_params": True,
                                                                   **SAMPLES}),
    "PMM": ("PMM", {"n_components": 2, **SAMPLES}),
    "PMM.weighted": ("PMM", {"n_components": 2, "weighted": True, **SAMPLES}),
    "GMM": ("GMM", {"n_components": 2, **SAMPLES}),
    "NBMM": ("NBMM", {"n_components": 2, **SAMPLES}),
}
POINT = ("MSE", "RMSE", "MAPE", "SMAPE", "MASE", "FreDF", "HuberLoss", "TukeyLoss", "QuantileLoss",
         "HuberQLoss", "MAE.horizon_weight")  # their predict step is a point forecast's: not compiled again
SCALERS = ("identity", "standard", "revin", "robust", "minmax", "minmax1", "invariant")


def names() -> list[str]:
    models = [f"{m}{step}" for m in MODELS for step in ("", ".train_step", ".predict_step")]
    losses = [f"MLP.{loss}.{step}" for loss in LOSSES for step in ("train_step", "predict_step")
              if step == "train_step" or loss not in POINT]
    return models + losses + [f"scaler.{s}" for s in SCALERS]


def _batch(model: Any, predict: bool) -> dict[str, Any]:
    """A batch of all ``SERIES`` as ``TimeSeriesLoader`` yields it: ``temporal`` is ``[series, columns,
    steps]`` with the target first and ``available_mask`` last. A prediction's batch has the ``H`` future
    steps appended (``NeuralForecast.predict`` appends the aligned future frame, the target missing
    there) and the model's test size set to ``H``, as ``NeuralForecast.predict`` sets it."""
    import pandas as pd
    import torch

    gen = torch.Generator().manual_seed(3)
    steps = STEPS + (H if predict else 0)
    t = torch.arange(steps, dtype=torch.float32)
    y = 10 + torch.sin(t / 2) + torch.arange(SERIES).unsqueeze(1) + 0.1 * torch.randn(SERIES, steps, generator=gen)
    y = y.abs() + 0.5
    if predict:
        y[:, STEPS:] = float("nan")
    columns = {"y": y, FUTR: torch.cos(t / 3).expand(SERIES, steps),
               HIST: torch.randn(SERIES, steps, generator=gen), "available_mask": torch.ones(SERIES, steps)}
    cols = [c for c in columns if c in ("y", "available_mask") or c in model.futr_exog_list + model.hist_exog_list]
    cols = cols[:-1] + ["available_mask"]
    batch = {"temporal": torch.stack([columns[c] for c in cols], dim=1), "temporal_cols": pd.Index(cols),
             "y_idx": 0, "static": None, "static_cols": None}
    if model.stat_exog_list:
        batch["static"] = torch.arange(SERIES, dtype=torch.float32).unsqueeze(1)
        batch["static_cols"] = pd.Index([STAT])
    return batch


def _windows(model: Any, predict: bool) -> dict[str, Any]:
    """The parsed windows of one training (or prediction) batch, made by the model's own methods, with
    the normalisation statistics left in ``model.scaler`` as those steps leave them."""
    import torch

    batch = _batch(model, predict)
    if predict:
        model.predict_step_size, model.predict_horizon = 1, model.horizon_backup
        model.set_test_size(H)
        if model.RECURRENT:
            model.input_size = model.inference_input_size
    elif model.RECURRENT:
        model.h = model.h_train
    temporal, static, static_cols, condition, weights, cols = model._create_windows(
        batch, step="predict" if predict else "train")
    n = len(condition)
    picked = torch.arange(min(n, WINDOWS)) if predict else torch.randperm(
        n, generator=torch.Generator().manual_seed(4))[:WINDOWS]
    windows = model._sample_windows(temporal, static, static_cols, cols, picked, condition, weights)
    original = windows["temporal"][:, model.input_size:, 0].clone()
    windows = model._normalization(windows=windows, y_idx=0)
    parsed = model._parse_windows(batch, windows)
    model.h, model.input_size = model.horizon_backup, model.input_size_backup
    keys = ("insample_y", "insample_mask", "outsample_y", "outsample_mask", "hist_exog", "futr_exog", "stat_exog")
    return {**dict(zip(keys, parsed)), "original_outsample_y": original}


def _model(cls_name: str, keywords: dict[str, Any], loss: Any = None) -> Any:
    import neuralforecast.models as models

    cls = getattr(models, cls_name)
    keywords = dict(keywords)
    if cls.MULTIVARIATE:
        keywords["n_series"] = SERIES
    if loss is not None:
        keywords["loss"] = loss
        keywords["valid_loss"] = loss  # the library requires a quantile or distribution loss to validate itself
    exog = {"futr_exog_list": [FUTR] if cls.EXOGENOUS_FUTR else None,
            "hist_exog_list": [HIST] if cls.EXOGENOUS_HIST else None,
            "stat_exog_list": [STAT] if cls.EXOGENOUS_STAT else None}
    return cls(h=H, input_size=INPUT, **exog, **keywords, windows_batch_size=WINDOWS, batch_size=SERIES,
               max_steps=1, random_seed=1, logger=False, enable_progress_bar=False, enable_model_summary=False)


def _loss(name: str) -> Any:
    import numpy as np
    from neuralforecast.losses import pytorch as losses

    cls, keywords = LOSSES[name]
    keywords = dict(keywords)
    if keywords.get("horizon_weight") == "ramp":
        keywords["horizon_weight"] = np.linspace(0.5, 1.0, H)
    return getattr(losses, cls)(**keywords)


def _scaler(kind: str) -> Built:
    import torch
    from neuralforecast.common._scalers import TemporalNorm
    from torch import nn

    gen = torch.Generator().manual_seed(5)
    x = 3 + torch.randn(WINDOWS, INPUT + H, 2, 1, generator=gen)  # [windows, L + h, target and one exogenous, 1]
    mask = torch.ones(WINDOWS, INPUT + H, 1, 1)
    mask[:, INPUT:] = 0.0  # the horizon is hidden from the statistics, as ``_normalization`` hides it

    class Scale(nn.Module):
        """Normalises a batch of windows with ``TemporalNorm`` and scales it back, as every step does."""

        def __init__(self) -> None:
            super().__init__()
            self.scaler = TemporalNorm(scaler_type=kind, dim=1, num_features=2)

        def forward(self, x: torch.Tensor, mask: torch.Tensor) -> Any:
            z = self.scaler.transform(x=x, mask=mask)
            return z, self.scaler.inverse_transform(z)

        def entry_points(self) -> list[Any]:
            return [TemporalNorm.transform, TemporalNorm.inverse_transform]

    return Scale(), (x, mask), {}


def build(name: str) -> Built:
    import logging
    import warnings

    import torch
    from gt_calls import Method
    from gt_models import allow_torchvision_import
    from torch import nn

    allow_torchvision_import()  # lightning imports torchvision
    warnings.filterwarnings("ignore")  # lightning's notes on hyperparameters saved with modules
    logging.getLogger("lightning.pytorch").setLevel(logging.ERROR)
    logging.getLogger("lightning_fabric").setLevel(logging.ERROR)
    torch.manual_seed(0)
    if name.startswith("scaler."):
        return _scaler(name.split(".", 1)[1])
    step = name.rsplit(".", 1)[1] if name.endswith(("train_step", "predict_step")) else "forward"
    key = name[: -len(step) - 1] if step != "forward" else name
    if key.startswith("MLP.") and key[4:] in LOSSES:
        model = _model("MLP", MODELS["MLP"][1], loss=_loss(key[4:]))
    else:
        model = _model(*MODELS[key])

    windows = _windows(model, predict=step == "predict_step")
    batch = {k: windows[k] for k in ("insample_y", "insample_mask", "futr_exog", "hist_exog", "stat_exog")}
    if step == "forward":
        if model.RECURRENT:  # a training step runs a recurrent model over ``h_train`` steps
            model.h = model.h_train
        return model, (batch,), {}
    if step == "predict_step":
        method = "_predict_step_recurrent_batch" if model.RECURRENT else "_predict_step_direct_batch"

        class _Predict(Method):
            """The library's predict step on one batch of windows; Lightning predicts in eval mode, so the
            model stays in eval mode whichever mode the harness asks for (gradients still follow it)."""

            def train(self, mode: bool = True) -> Any:
                super().train(mode)
                self.owner.eval()
                return self

        return _Predict(model, method, y_idx=0), (), batch

    class _TrainStep(nn.Module):
        """The loss of ``BaseModel.training_step`` on parsed windows: forward, domain map, loss."""

        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, batch: dict[str, Any], outsample_y: torch.Tensor, outsample_mask: torch.Tensor,
                    original_outsample_y: torch.Tensor) -> Any:
            m = self.model
            if m.RECURRENT:
                m.h = m.h_train
            output = m.loss.domain_map(m(batch))
            if m.loss.is_distribution_output:
                y_loc, y_scale = m._get_loc_scale(0)
                distr_args = m.loss.scale_decouple(output=output, loc=y_loc, scale=y_scale)
                loss = m.loss(y=original_outsample_y, distr_args=distr_args, mask=outsample_mask)
            else:
                loss = m.loss(y=outsample_y, y_hat=output, y_insample=batch["insample_y"], mask=outsample_mask)
            m.h = m.horizon_backup
            return loss

        def entry_points(self) -> list[Any]:
            loss = model.loss  # a distribution loss sets its domain map and scale decoupling per instance
            parts = [getattr(loss, n) for n in ("domain_map", "scale_decouple") if hasattr(loss, n)]
            return [type(model), type(loss).__call__] + [getattr(p, "func", p) for p in parts]

    return _TrainStep(), (batch, windows["outsample_y"], windows["outsample_mask"],
                          windows["original_outsample_y"]), {}
