"""Ground-truth bench, lightning: LightningModule steps with their logging and manual optimization, the demo models,
Fabric-wrapped modules and steps, and the utilities users call inside steps.

Lightning (``lightning.pytorch``, formerly PyTorch Lightning) is a training framework: a user writes a
``LightningModule`` with ``training_step`` / ``validation_step`` / ``test_step`` / ``predict_step`` (logging with
``self.log`` / ``self.log_dict``, or optimizing by hand with ``self.optimizers()``, ``self.manual_backward``,
``self.clip_gradients`` and ``self.toggle_optimizer``) and hands it to a ``Trainer``. ``torch.compile`` of a
LightningModule given to the Trainer compiles its ``forward`` and its four step methods
(``lightning.pytorch.utilities.compile.from_compiled``), each called by the loops with a ``Trainer`` attached. So
the models are bench modules whose forward calls one step of a module attached to a real CPU ``Trainer`` put in the
state its loop would be in (stage, hook name, result collection, optimizers and, for manual optimization, the
step hooks on the ``LightningOptimizer``); the train-mode pass of a step runs with gradients enabled. Batches of 4
samples, 8 features and 3 classes:

- ``DEMOS``: ``lightning.pytorch.demos``: ``Transformer`` (its positional encoding and causal mask),
  ``SimpleLSTM``, the MNIST ``Net``, ``BoringModel`` (forward, its four steps, an automatic-optimization train step),
  ``DemoModel``'s ``training_step``, ``ManualOptimBoringModel``,
  ``LightningTransformer`` and ``LightningLSTM`` (its hidden state carried over steps), and a ``BoringModel`` set up
  by Fabric (forward and ``training_step`` redirected through the wrapper);
- ``STEPS``: a classifier written as the docs show, its ``training_step`` logging under each option of ``self.log``
  (progress bar, step and epoch, a reduction by callable, ``sync_dist``, ``batch_size``, Python numbers, a CSV
  logger, ``log_dict``), reading ``self.device`` / ``current_epoch`` /
  ``global_step``, calling ``self.all_gather`` and ``self.print``, under bf16 autocast, with a dict batch and with
  no Trainer attached; ``validation_step`` (validate and fit, a second dataloader), ``test_step``,
  ``predict_step``;
- ``TRAIN``: automatic-optimization steps as the loop runs them (``training_step``, ``LightningModule.backward``,
  ``LightningOptimizer.step`` with and without a closure, the ``optimizer_step`` / ``optimizer_zero_grad`` /
  ``lr_scheduler_step`` / ``configure_gradient_clipping`` hooks, ``grad_norm`` logged in
  ``on_before_optimizer_step``); manual optimization (``manual_backward``, ``clip_gradients`` by norm and by value,
  a closure, ``lr_schedulers()``, a GAN's two optimizers under ``toggle_optimizer`` and
  ``toggled_optimizer``, the raw optimizers);
- ``FABRIC``: ``lightning.fabric.Fabric`` on the CPU: a set-up module's forward under 32-bit, bf16-mixed and
  bf16-true precision, train steps with ``fabric.backward`` and the wrapped optimizer (plain, bf16-mixed,
  ``clip_gradients``, ``no_backward_sync``), ``log`` / ``log_dict`` to a CSV logger,
  ``all_gather`` / ``all_reduce`` / ``broadcast`` / ``to_device``, and a LightningModule's manual-optimization
  ``training_step`` run through Fabric (its ``self.log``, ``self.optimizers()`` and ``self.manual_backward``);
- ``UTILS``: ``grad_norm``, ``move_data_to_device``, ``convert_to_tensors``, ``recursive_detach``,
  ``LightningModule.transfer_batch_to_device`` and ``measure_flops``.

No torchmetrics metric is logged. Everything runs on the CPU, in-process, without a process group; loggers write to a
temporary folder. Lightning imports torchvision: ``before_import`` lets it import on the CPU torch. Random weights,
nothing downloaded. ``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

import functools
from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
BATCH, DIM, HID, CLASSES, VOCAB, SEQ = 4, 8, 16, 3, 40, 6

DEMOS = (
    "demos.Transformer", "demos.SimpleLSTM", "demos.Net",
    "demos.BoringModel.forward", "demos.BoringModel.training_step", "demos.BoringModel.validation_step",
    "demos.BoringModel.test_step", "demos.BoringModel.predict_step", "demos.BoringModel.train_step",
    "demos.DemoModel.training_step",
    "demos.ManualOptimBoringModel.training_step", "demos.LightningTransformer.forward",
    "demos.LightningTransformer.training_step", "demos.LightningLSTM.training_step",
    "demos.BoringModel.fabric.forward", "demos.BoringModel.fabric.training_step",
)

# Model name -> (step, stage, options). Stages: "train", "val" (validate), "fit_val" (validation during fit),
# "test", "predict", None (no Trainer attached). Options: "log" (keywords of ``self.log``), "value" ("tensor" /
# "number"), "log_dict", "logger" (a CSV logger), "extra" (what else the step does), "batch" ("tuple" / "dict"),
# "dataloader_idx".
STEPS: dict[str, tuple[str, Any, dict[str, Any]]] = {
    "training_step.log": ("training_step", "train", {}),
    "training_step.log.prog_bar_step_epoch": ("training_step", "train",
                                              {"log": {"prog_bar": True, "on_step": True, "on_epoch": True}}),
    "training_step.log.reduce_callable": ("training_step", "train",
                                          {"log": {"on_epoch": True, "reduce_fx": "sum_fn"}}),
    "training_step.log.sync_dist": ("training_step", "train", {"log": {"sync_dist": True, "on_epoch": True}}),
    "training_step.log.batch_size": ("training_step", "train", {"log": {"batch_size": BATCH}}),
    "training_step.log.number": ("training_step", "train", {"value": "number"}),
    "training_step.log.csv_logger": ("training_step", "train", {"log": {"logger": True}, "logger": True}),
    "training_step.log_dict": ("training_step", "train", {"log_dict": True}),
    "training_step.dict_batch": ("training_step", "train", {"batch": "dict"}),
    "training_step.properties": ("training_step", "train", {"extra": "properties"}),
    "training_step.all_gather": ("training_step", "train", {"extra": "all_gather"}),
    "training_step.print": ("training_step", "train", {"extra": "print"}),
    "training_step.bf16_autocast": ("training_step", "train", {"extra": "autocast"}),
    "training_step.no_trainer": ("training_step", None, {}),
    "validation_step": ("validation_step", "val", {}),
    "validation_step.fit": ("validation_step", "fit_val", {}),
    "validation_step.dataloader_idx": ("validation_step", "val", {"dataloader_idx": 1}),
    "test_step.log_dict": ("test_step", "test", {}),
    "predict_step": ("predict_step", "predict", {}),
}

# Model name -> (kind, options). Kinds: "auto" (automatic optimization as the loop runs it), "manual" (a manual
# ``training_step``), "gan" (two optimizers). Options: "optimizer" ("sgd" / "adam"), "scheduler", "extra".
TRAIN: dict[str, tuple[str, dict[str, Any]]] = {
    "train_step.auto": ("auto", {}),
    "train_step.auto.closure": ("auto", {"extra": "closure"}),
    "train_step.auto.optimizer_step_hook": ("auto", {"extra": "hooks", "optimizer": "adam"}),
    "train_step.auto.lr_scheduler_step": ("auto", {"extra": "scheduler", "scheduler": True}),
    "train_step.auto.configure_gradient_clipping": ("auto", {"extra": "clip"}),
    "train_step.auto.grad_norm": ("auto", {"extra": "grad_norm"}),
    "manual.training_step": ("manual", {}),
    "manual.clip_gradients.norm": ("manual", {"extra": "clip_norm"}),
    "manual.clip_gradients.value": ("manual", {"extra": "clip_value"}),
    "manual.closure": ("manual", {"extra": "closure", "optimizer": "adam"}),
    "manual.lr_schedulers": ("manual", {"extra": "scheduler", "scheduler": True}),
    "manual.raw_optimizers": ("manual", {"extra": "raw"}),
    "manual.gan.toggle_optimizer": ("gan", {"extra": "toggle"}),
    "manual.gan.toggled_optimizer": ("gan", {"extra": "toggled"}),
}

FABRIC = (
    "fabric.forward.32-true", "fabric.forward.bf16-mixed", "fabric.forward.bf16-true",
    "fabric.train_step", "fabric.train_step.bf16-mixed", "fabric.clip_gradients.norm",
    "fabric.no_backward_sync", "fabric.log_dict", "fabric.collectives", "fabric.to_device",
    "fabric.LightningModule.manual_training_step",
)

UTILS = (
    "grad_norm", "move_data_to_device", "convert_to_tensors", "recursive_detach",
    "transfer_batch_to_device", "measure_flops",
)


def names() -> list[str]:
    return (list(DEMOS) + [f"steps.{s}" for s in STEPS] + list(TRAIN) + list(FABRIC)
            + [f"utils.{u}" for u in UTILS])


def before_import() -> None:
    """Let torchvision (which lightning imports) import on the CPU torch."""
    import gt_models

    gt_models.allow_torchvision_import()


def _data(seed: int = 1) -> tuple[Any, Any]:
    """``(x, y)``: a batch of 4 samples of 8 features and their class labels."""
    import torch

    gen = torch.Generator().manual_seed(seed)
    return torch.randn(BATCH, DIM, generator=gen), torch.arange(BATCH) % CLASSES


def _tokens(seed: int = 1) -> tuple[Any, Any]:
    import torch

    gen = torch.Generator().manual_seed(seed)
    return torch.randint(0, VOCAB, (2, SEQ), generator=gen), torch.randint(0, VOCAB, (2, SEQ), generator=gen)


def _folder() -> str:
    import tempfile

    return tempfile.mkdtemp(prefix="gt_lightning_")


def _trainer(logger: bool = False, **kwargs: Any) -> Any:
    from lightning.pytorch import Trainer
    from lightning.pytorch.loggers import CSVLogger

    root = _folder()
    return Trainer(accelerator="cpu", devices=1, logger=CSVLogger(root) if logger else False, max_epochs=1,
                   enable_checkpointing=False, enable_progress_bar=False, enable_model_summary=False,
                   default_root_dir=root, **kwargs)


def _attach(module: Any, stage: Any, batch: Any, logger: bool = False, dataloader_idx: int | None = None) -> Any:
    """Attach ``module`` to a CPU ``Trainer`` in the state its loop is in when it calls the step of ``stage``: the
    trainer's function and stage, optimizers set up (and, under manual optimization, the step hooks of the
    ``LightningOptimizer``), the batch given to the result collection, and the hook's name on the module."""
    from lightning.pytorch.trainer.states import RunningStage, TrainerFn

    if stage is None:
        return None
    trainer = _trainer(logger)
    trainer.strategy.connect(module)
    module.trainer = trainer
    fn, running, hook = {
        "train": (TrainerFn.FITTING, RunningStage.TRAINING, "training_step"),
        "fit_val": (TrainerFn.FITTING, RunningStage.VALIDATING, "validation_step"),
        "val": (TrainerFn.VALIDATING, RunningStage.VALIDATING, "validation_step"),
        "test": (TrainerFn.TESTING, RunningStage.TESTING, "test_step"),
        "predict": (TrainerFn.PREDICTING, RunningStage.PREDICTING, "predict_step"),
    }[stage]
    trainer.state.fn = fn
    trainer.state.stage = running
    if stage == "train":
        trainer.strategy.setup_optimizers(trainer)
        if not module.automatic_optimization:
            trainer.fit_loop.epoch_loop.manual_optimization.on_run_start()
    if stage != "predict":
        trainer._logger_connector.on_batch_start(batch, dataloader_idx)
    module._current_fx_name = hook
    return trainer


def _classes() -> dict[str, Any]:
    """The LightningModules of the tables, written as Lightning's docs show."""
    import torch
    import torch.nn.functional as F
    from lightning.pytorch import LightningModule
    from lightning.pytorch.utilities import grad_norm
    from torch import nn

    def network() -> nn.Module:
        return nn.Sequential(nn.Linear(DIM, HID), nn.ReLU(), nn.Dropout(0.1), nn.Linear(HID, CLASSES))

    def optimizers(module: LightningModule, options: dict[str, Any]) -> Any:
        if options.get("optimizer") == "adam":
            optimizer: torch.optim.Optimizer = torch.optim.Adam(module.parameters(), lr=1e-3)
        else:
            optimizer = torch.optim.SGD(module.parameters(), lr=0.1, momentum=0.9)
        if not options.get("scheduler"):
            return optimizer
        scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.9)
        return {"optimizer": optimizer, "lr_scheduler": {"scheduler": scheduler, "interval": "step"}}

    class LitClassifier(LightningModule):
        """A classifier whose steps log as the docs show; ``options`` pick the logging call and what else a step
        does."""

        def __init__(self, **options: Any) -> None:
            super().__init__()
            self.save_hyperparameters()
            self.options = options
            self.net = network()
            log = dict(options.get("log", {}))
            if log.get("reduce_fx") == "sum_fn":
                log["reduce_fx"] = torch.sum
            self.log_options = log

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.net(x)

        def _shared(self, batch: Any) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
            x, y = (batch["x"], batch["y"]) if isinstance(batch, dict) else batch
            logits = self(x)
            loss = F.cross_entropy(logits, y)
            acc = (logits.argmax(-1) == y).float().mean()
            return logits, loss, acc

        def training_step(self, batch: Any, batch_idx: int) -> Any:
            extra = self.options.get("extra")
            if extra == "autocast":
                with torch.autocast("cpu", dtype=torch.bfloat16):
                    logits, loss, acc = self._shared(batch)
            else:
                logits, loss, acc = self._shared(batch)
            if self.options.get("value") == "number":
                self.log("train_loss", loss.item(), **self.log_options)
                self.log("step_idx", batch_idx)
            else:
                self.log("train_loss", loss, **self.log_options)
            if self.options.get("log_dict"):
                self.log_dict({"train_acc": acc, "lr": 0.1, "logit_mean": logits.mean()}, prog_bar=True)
            if extra == "properties":
                loss = loss + 0.0 * self.current_epoch + 0.0 * self.global_step + 0.0 * self.global_rank
                loss = loss.to(self.device, self.dtype)
            elif extra == "all_gather":
                gathered = self.all_gather(loss)
                loss = loss + 0.0 * gathered.sum()
            elif extra == "print":
                self.print("loss", loss)
            if self.options.get("batch") == "dict":
                return {"loss": loss, "logits": logits.detach()}
            return loss

        def validation_step(self, batch: Any, batch_idx: int, dataloader_idx: int = 0) -> Any:
            _, loss, acc = self._shared(batch)
            self.log("val_loss", loss, prog_bar=True)
            self.log("val_acc", acc, on_epoch=True)
            return loss

        def test_step(self, batch: Any, batch_idx: int) -> Any:
            _, loss, acc = self._shared(batch)
            self.log_dict({"test_loss": loss, "test_acc": acc})
            return {"loss": loss, "acc": acc}

        def predict_step(self, batch: Any, batch_idx: int, dataloader_idx: int = 0) -> Any:
            x = batch[0] if isinstance(batch, (tuple, list)) else batch
            probs = self(x).softmax(-1)
            return {"probs": probs, "label": probs.argmax(-1)}

        def configure_optimizers(self) -> Any:
            return optimizers(self, self.options)

        def configure_gradient_clipping(self, optimizer: Any, gradient_clip_val: Any = None,
                                        gradient_clip_algorithm: Any = None) -> None:
            self.clip_gradients(optimizer, gradient_clip_val=0.5, gradient_clip_algorithm="norm")

        def on_before_optimizer_step(self, optimizer: Any) -> None:
            if self.options.get("extra") == "grad_norm":
                self.log_dict(grad_norm(self.net, norm_type=2))

    class ManualClassifier(LitClassifier):
        """Manual optimization: the step zeroes, back-propagates, clips and steps itself."""

        def __init__(self, **options: Any) -> None:
            super().__init__(**options)
            self.automatic_optimization = False

        def training_step(self, batch: Any, batch_idx: int) -> Any:
            extra = self.options.get("extra")
            opt = self.optimizers(use_pl_optimizer=extra != "raw")
            if extra == "closure":
                def closure() -> torch.Tensor:
                    _, loss, _ = self._shared(batch)
                    opt.zero_grad()
                    self.manual_backward(loss)
                    return loss

                loss = opt.step(closure=closure)
                self.log("train_loss", loss)
                return loss
            _, loss, acc = self._shared(batch)
            opt.zero_grad()
            self.manual_backward(loss)
            if extra == "clip_norm":
                self.clip_gradients(opt, gradient_clip_val=0.5, gradient_clip_algorithm="norm")
            elif extra == "clip_value":
                self.clip_gradients(opt, gradient_clip_val=0.05, gradient_clip_algorithm="value")
            opt.step()
            if extra == "scheduler":
                scheduler = self.lr_schedulers()
                scheduler.step()
            self.log_dict({"train_loss": loss, "train_acc": acc}, prog_bar=True)
            return loss

    class LitGAN(LightningModule):
        """A tiny GAN trained by hand with one optimizer per network, toggled in turn."""

        def __init__(self, **options: Any) -> None:
            super().__init__()
            self.options = options
            self.automatic_optimization = False
            self.generator = nn.Sequential(nn.Linear(4, HID), nn.ReLU(), nn.Linear(HID, DIM))
            self.discriminator = nn.Sequential(nn.Linear(DIM, HID), nn.LeakyReLU(0.2), nn.Linear(HID, 1))

        def forward(self, z: torch.Tensor) -> torch.Tensor:
            return self.generator(z)

        def training_step(self, batch: Any, batch_idx: int) -> Any:
            x, _ = batch
            opt_g, opt_d = self.optimizers()
            z = torch.randn(x.shape[0], 4, device=self.device)
            ones = torch.ones(x.shape[0], 1, device=self.device)
            if self.options.get("extra") == "toggled":
                with self.toggled_optimizer(opt_g):
                    g_loss = F.binary_cross_entropy_with_logits(self.discriminator(self(z)), ones)
                    self.manual_backward(g_loss)
                    opt_g.step()
                    opt_g.zero_grad()
                with self.toggled_optimizer(opt_d):
                    real = F.binary_cross_entropy_with_logits(self.discriminator(x), ones)
                    fake = F.binary_cross_entropy_with_logits(self.discriminator(self(z).detach()), 0 * ones)
                    d_loss = (real + fake) / 2
                    self.manual_backward(d_loss)
                    opt_d.step()
                    opt_d.zero_grad()
            else:
                self.toggle_optimizer(opt_g)
                g_loss = F.binary_cross_entropy_with_logits(self.discriminator(self(z)), ones)
                self.manual_backward(g_loss)
                opt_g.step()
                opt_g.zero_grad()
                self.untoggle_optimizer(opt_g)
                self.toggle_optimizer(opt_d)
                real = F.binary_cross_entropy_with_logits(self.discriminator(x), ones)
                fake = F.binary_cross_entropy_with_logits(self.discriminator(self(z).detach()), 0 * ones)
                d_loss = (real + fake) / 2
                self.manual_backward(d_loss)
                opt_d.step()
                opt_d.zero_grad()
                self.untoggle_optimizer(opt_d)
            self.log_dict({"g_loss": g_loss, "d_loss": d_loss}, prog_bar=True)
            return None

        def configure_optimizers(self) -> Any:
            opt_g = torch.optim.Adam(self.generator.parameters(), lr=2e-4, betas=(0.5, 0.999))
            opt_d = torch.optim.Adam(self.discriminator.parameters(), lr=2e-4, betas=(0.5, 0.999))
            return [opt_g, opt_d], []

    return {"LitClassifier": LitClassifier, "ManualClassifier": ManualClassifier, "LitGAN": LitGAN}


def _step_runner(module: Any, method: str, batch: Any, entries: list[Any], grad: bool = False,
                 batch_idx: int = 0, **kwargs: Any) -> Built:
    """A bench module calling ``module.<method>(batch, batch_idx)`` on the batch it is given (with gradients
    enabled when the step trains)."""
    import torch

    from gt_calls import Run

    def run(owner: Any, *tensors: Any) -> Any:
        step = getattr(owner, method)
        if method == "forward":
            return step(*tensors)
        if grad:
            with torch.enable_grad():
                return step(_rebatch(batch, tensors), batch_idx, **kwargs)
        return step(_rebatch(batch, tensors), batch_idx, **kwargs)

    return Run(module, run, entries), _flat(batch), {}


def _flat(batch: Any) -> tuple[Any, ...]:
    if isinstance(batch, dict):
        return tuple(batch.values())
    if isinstance(batch, (tuple, list)):
        return tuple(batch)
    return (batch,)


def _rebatch(batch: Any, tensors: tuple[Any, ...]) -> Any:
    """The batch of the same structure as ``batch`` made of the tensors given to the compiled forward."""
    if isinstance(batch, dict):
        return dict(zip(batch, tensors))
    if isinstance(batch, tuple):
        return tuple(tensors)
    if isinstance(batch, list):
        return list(tensors)
    return tensors[0]


def _demos(name: str) -> Built:
    import torch
    from lightning.pytorch import LightningModule
    from lightning.pytorch.demos import (BoringModel, DemoModel, LightningLSTM, LightningTransformer, SimpleLSTM,
                                         Transformer)
    from lightning.pytorch.demos.boring_classes import ManualOptimBoringModel, Net

    from gt_calls import Run

    small = functools.partial(Transformer, vocab_size=VOCAB, ninp=16, nhead=2, nhid=16, nlayers=1, dropout=0.1)
    if name == "demos.Transformer":
        return small(), _tokens(), {}
    if name == "demos.SimpleLSTM":
        lstm = SimpleLSTM(vocab_size=VOCAB, ninp=16, nhid=16, nlayers=2, dropout=0.1)

        def run_lstm(owner: Any, tokens: torch.Tensor) -> Any:
            return owner(tokens, owner.init_hidden(tokens.size(0)))

        return Run(lstm, run_lstm, [SimpleLSTM]), (_tokens()[0],), {}
    if name == "demos.Net":
        return Net(), (torch.randn(2, 1, 28, 28),), {}
    boring = torch.randn(BATCH, 32)
    if name == "demos.BoringModel.forward":
        return BoringModel(), (boring,), {}
    if name in ("demos.BoringModel.training_step", "demos.BoringModel.validation_step",
                "demos.BoringModel.test_step", "demos.BoringModel.predict_step"):
        method = name.rsplit(".", 1)[1]
        model = BoringModel()
        stage = {"training_step": "train", "validation_step": "val", "test_step": "test"}.get(method, "predict")
        _attach(model, stage, boring)
        entry = LightningModule.predict_step if method == "predict_step" else getattr(BoringModel, method)
        return _step_runner(model, method, boring, [entry], grad=method == "training_step")
    if name == "demos.BoringModel.train_step":
        return _auto_train(BoringModel(), boring, {})
    if name == "demos.DemoModel.training_step":
        model = DemoModel(out_dim=4)
        _attach(model, "train", boring)
        return _step_runner(model, "training_step", boring, [DemoModel.training_step], grad=True)
    if name == "demos.ManualOptimBoringModel.training_step":
        model = ManualOptimBoringModel()
        _attach(model, "train", boring)
        return _step_runner(model, "training_step", boring, [ManualOptimBoringModel.training_step], grad=True)
    if name.startswith("demos.LightningTransformer"):
        model = LightningTransformer(vocab_size=VOCAB)
        model.model = small()
        if name.endswith("forward"):
            return model, _tokens(), {}
        _attach(model, "train", _tokens())
        return _step_runner(model, "training_step", _tokens(), [LightningTransformer.training_step], grad=True)
    if name == "demos.LightningLSTM.training_step":
        model = LightningLSTM(vocab_size=VOCAB)
        model.model = SimpleLSTM(vocab_size=VOCAB, ninp=16, nhid=16, nlayers=2, dropout=0.1)
        _attach(model, "train", _tokens())
        return _step_runner(model, "training_step", _tokens(), [LightningLSTM.training_step], grad=True)
    # A BoringModel set up by Fabric: its forward, and its training_step redirected through the wrapper.
    from lightning.fabric.wrappers import _FabricModule

    fabric = _fabric()
    model = BoringModel()
    wrapped = fabric.setup(model, torch.optim.SGD(model.parameters(), lr=0.1))[0]
    if name == "demos.BoringModel.fabric.forward":
        return Run(wrapped, lambda owner, x: owner(x), [_FabricModule.forward]), (boring,), {}
    return Run(wrapped, lambda owner, x: owner.training_step(x, 0),
               [_FabricModule.forward, BoringModel.training_step]), (boring,), {}


def _steps(name: str) -> Built:
    from lightning.pytorch import LightningModule

    method, stage, options = STEPS[name]
    model = _classes()["LitClassifier"](**options)
    x, y = _data()
    batch: Any = {"x": x, "y": y} if options.get("batch") == "dict" else (x, y)
    dataloader_idx = options.get("dataloader_idx")
    _attach(model, stage, batch, logger=bool(options.get("logger")), dataloader_idx=dataloader_idx)
    entries: list[Any] = [getattr(type(model), method)]
    if method != "predict_step":
        entries += [LightningModule.log, LightningModule.log_dict]
    extra = options.get("extra")
    if extra == "all_gather":
        entries.append(LightningModule.all_gather)
    elif extra == "print":
        entries.append(LightningModule.print)
    kwargs = {} if dataloader_idx is None else {"dataloader_idx": dataloader_idx}
    return _step_runner(model, method, batch, entries, grad=method == "training_step", **kwargs)


def _auto_train(model: Any, batch: Any, options: dict[str, Any]) -> Built:
    """One automatic-optimization step as the fit loop runs it: ``training_step``, ``backward``, the optimizer
    hooks and ``LightningOptimizer.step``."""
    import torch
    from lightning.pytorch import LightningModule
    from lightning.pytorch.core.optimizer import LightningOptimizer

    from gt_calls import Run

    _attach(model, "train", batch)
    extra = options.get("extra")

    def loss_of(owner: Any, out: Any) -> Any:
        return out["loss"] if isinstance(out, dict) else out

    def run(owner: Any, *tensors: Any) -> Any:
        data = _rebatch(batch, tensors)
        opt = owner.optimizers()
        with torch.enable_grad():
            if extra == "closure":
                def closure() -> Any:
                    loss = loss_of(owner, owner.training_step(data, 0))
                    opt.zero_grad()
                    owner.backward(loss)
                    return loss

                return opt.step(closure=closure)
            if extra == "hooks":
                def closure_hooks() -> Any:
                    loss = loss_of(owner, owner.training_step(data, 0))
                    owner.backward(loss)
                    return loss

                owner.optimizer_zero_grad(0, 0, opt)
                owner.optimizer_step(0, 0, opt, closure_hooks)
                return owner.global_step
            loss = loss_of(owner, owner.training_step(data, 0))
            opt.zero_grad()
            owner.backward(loss)
            if extra == "clip":
                owner.configure_gradient_clipping(opt, None, None)
            elif extra == "grad_norm":
                owner.on_before_optimizer_step(opt)
            opt.step()
            if extra == "scheduler":
                owner.lr_scheduler_step(owner.lr_schedulers(), None)
            return loss.detach()

    entries: list[Any] = [type(model).training_step, LightningModule.backward, LightningOptimizer.step]
    if extra == "hooks":
        entries += [LightningModule.optimizer_step, LightningModule.optimizer_zero_grad]
    elif extra == "scheduler":
        entries += [LightningModule.lr_scheduler_step, LightningModule.lr_schedulers]
    elif extra == "clip":
        entries += [LightningModule.clip_gradients]
    elif extra == "grad_norm":
        from lightning.pytorch.utilities import grad_norm

        entries += [grad_norm, LightningModule.log_dict]
    return Run(model, run, entries), _flat(batch), {}


def _train(name: str) -> Built:
    from lightning.pytorch import LightningModule
    from lightning.pytorch.core.optimizer import LightningOptimizer

    kind, options = TRAIN[name]
    classes = _classes()
    x, y = _data()
    if kind == "auto":
        return _auto_train(classes["LitClassifier"](**options), (x, y), options)
    model = classes["ManualClassifier" if kind == "manual" else "LitGAN"](**options)
    _attach(model, "train", (x, y))
    entries: list[Any] = [type(model).training_step, LightningModule.optimizers, LightningModule.manual_backward,
                          LightningOptimizer.step, LightningModule.log_dict]
    extra = options.get("extra")
    if extra in ("clip_norm", "clip_value"):
        entries.append(LightningModule.clip_gradients)
    elif extra == "scheduler":
        entries.append(LightningModule.lr_schedulers)
    elif extra == "toggle":
        entries += [LightningModule.toggle_optimizer, LightningModule.untoggle_optimizer]
    elif extra == "toggled":
        entries.append(LightningModule.toggled_optimizer)
    return _step_runner(model, "training_step", (x, y), entries, grad=True, batch_idx=1)


def _fabric(precision: str = "32-true", logger: bool = False) -> Any:
    from lightning.fabric import Fabric
    from lightning.fabric.loggers import CSVLogger

    loggers = [CSVLogger(_folder())] if logger else None
    return Fabric(accelerator="cpu", devices=1, precision=precision, loggers=loggers)  # type: ignore[arg-type]


def _fabric_models(name: str) -> Built:
    import torch
    import torch.nn.functional as F
    from lightning.fabric import Fabric
    from lightning.fabric.wrappers import _FabricModule, _FabricOptimizer
    from torch import nn

    from gt_calls import Run

    x, y = _data()
    if name.startswith("fabric.forward."):
        precision = name.split(".", 2)[2]
        fabric = _fabric(precision)
        net = nn.Sequential(nn.Linear(DIM, HID), nn.LayerNorm(HID), nn.GELU(), nn.Linear(HID, CLASSES))
        return Run(fabric.setup(net), lambda owner, x: owner(x), [_FabricModule.forward]), (x,), {}
    if name == "fabric.LightningModule.manual_training_step":
        fabric = _fabric(logger=True)
        model = _classes()["ManualClassifier"](extra="clip_norm")
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        wrapped, _ = fabric.setup(model, optimizer)
        from lightning.pytorch import LightningModule

        def manual(owner: Any, x: torch.Tensor, y: torch.Tensor) -> Any:
            with torch.enable_grad():
                return owner.training_step((x, y), 0)

        return Run(wrapped, manual, [_FabricModule.forward, type(model).training_step, LightningModule.log_dict,
                                     LightningModule.manual_backward, LightningModule.optimizers,
                                     LightningModule.clip_gradients]), (x, y), {}
    precision = "bf16-mixed" if name.endswith("bf16-mixed") else "32-true"
    fabric = _fabric(precision, logger=name == "fabric.log_dict")
    net = nn.Sequential(nn.Linear(DIM, HID), nn.ReLU(), nn.Linear(HID, CLASSES))
    model, optimizer = fabric.setup(net, torch.optim.AdamW(net.parameters(), lr=1e-3))
    step_entries = [_FabricModule.forward, Fabric.backward, _FabricOptimizer.step]

    def train(owner: Any, x: torch.Tensor, y: torch.Tensor) -> Any:
        with torch.enable_grad():
            optimizer.zero_grad()
            loss = F.cross_entropy(owner(x), y)
            if name == "fabric.no_backward_sync":
                with fabric.no_backward_sync(owner, enabled=True):
                    fabric.backward(loss / 2)
                loss2 = F.cross_entropy(owner(x.flip(0)), y.flip(0))
                fabric.backward(loss2 / 2)
            else:
                fabric.backward(loss)
            if name == "fabric.clip_gradients.norm":
                fabric.clip_gradients(owner, optimizer, max_norm=0.5)
            elif name == "fabric.clip_gradients.value":
                fabric.clip_gradients(owner, optimizer, clip_val=0.05)
            optimizer.step()
            if name == "fabric.log_dict":
                fabric.log("loss", loss)
                fabric.log_dict({"loss": loss.detach(), "lr": optimizer.param_groups[0]["lr"]}, step=0)
            return loss.detach()

    extra: dict[str, list[Any]] = {
        "fabric.clip_gradients.norm": [Fabric.clip_gradients], "fabric.clip_gradients.value": [Fabric.clip_gradients],
        "fabric.no_backward_sync": [Fabric.no_backward_sync],
        "fabric.log_dict": [Fabric.log, Fabric.log_dict],
    }
    if name == "fabric.collectives":
        def collectives(owner: Any, x: torch.Tensor, y: torch.Tensor) -> Any:
            gathered = fabric.all_gather(owner(x))
            reduced = fabric.all_reduce(gathered.sum(), reduce_op="mean")
            shared = fabric.broadcast(x, src=0)
            return gathered, reduced, shared

        return Run(model, collectives, [_FabricModule.forward, Fabric.all_gather, Fabric.all_reduce,
                                        Fabric.broadcast]), (x, y), {}
    if name == "fabric.to_device":
        def to_device(owner: Any, x: torch.Tensor, y: torch.Tensor) -> Any:
            moved = fabric.to_device({"x": x, "pair": (x, y), "n": 3})
            return owner(moved["x"]), moved["pair"][1]

        return Run(model, to_device, [_FabricModule.forward, Fabric.to_device]), (x, y), {}
    return Run(model, train, step_entries + extra.get(name, [])), (x, y), {}


def _utils(name: str) -> Built:
    import torch
    from torch import nn

    from gt_calls import Run

    x, y = _data()
    if name == "grad_norm":
        from lightning.pytorch.utilities import grad_norm

        net = nn.Sequential(nn.Linear(DIM, HID), nn.ReLU(), nn.Linear(HID, CLASSES))

        def norms(owner: Any, x: torch.Tensor) -> Any:
            with torch.enable_grad():
                owner.zero_grad()
                owner(x).square().mean().backward()
            return grad_norm(owner, norm_type=2)

        return Run(net, norms, [grad_norm]), (x,), {}
    if name == "move_data_to_device":
        from lightning.fabric.utilities.apply_func import move_data_to_device

        def move(x: torch.Tensor, y: torch.Tensor) -> Any:
            return move_data_to_device({"x": x, "pair": [x, y], "meta": "a"}, torch.device("cpu"))

        return Run(nn.Identity(), lambda owner, x, y: move(x, y), [move_data_to_device]), (x, y), {}
    if name == "convert_to_tensors":
        from lightning.fabric.utilities.apply_func import convert_to_tensors

        def convert(x: torch.Tensor) -> Any:
            return convert_to_tensors({"x": x, "n": 3, "f": 0.5, "list": [1.0, 2.0]}, device="cpu")

        return Run(nn.Identity(), lambda owner, x: convert(x), [convert_to_tensors]), (x,), {}
    if name == "recursive_detach":
        from lightning.pytorch.utilities.memory import recursive_detach

        def detach(x: torch.Tensor) -> Any:
            with torch.enable_grad():
                z = x.requires_grad_(True) * 2
                return recursive_detach({"z": z, "nested": {"w": z.sum()}, "k": 1}, to_cpu=True)

        return Run(nn.Identity(), lambda owner, x: detach(x.clone()), [recursive_detach]), (x,), {}
    if name == "transfer_batch_to_device":
        from lightning.pytorch import LightningModule

        model = _classes()["LitClassifier"]()

        def transfer(owner: Any, x: torch.Tensor, y: torch.Tensor) -> Any:
            return owner.transfer_batch_to_device({"x": x, "y": y}, torch.device("cpu"), 0)

        return Run(model, transfer, [LightningModule.transfer_batch_to_device]), (x, y), {}
    from lightning.fabric.utilities.throughput import measure_flops

    net = nn.Sequential(nn.Linear(DIM, HID), nn.ReLU(), nn.Linear(HID, CLASSES))

    def flops(owner: Any, x: torch.Tensor) -> Any:
        with torch.enable_grad():
            return measure_flops(owner, lambda: owner(x), lambda out: out.sum())

    return Run(net, flops, [measure_flops]), (x,), {}


def build(name: str) -> Built:
    import torch

    torch.manual_seed(0)
    if name.startswith("demos."):
        return _demos(name)
    if name.startswith("steps."):
        return _steps(name[len("steps."):])
    if name in TRAIN:
        return _train(name)
    if name in FABRIC:
        return _fabric_models(name)
    return _utils(name[len("utils."):])
