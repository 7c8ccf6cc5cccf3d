"""Ground-truth bench, trainer: coqui's training framework driving tiny models through its train and eval steps.

coqui's ``trainer`` runs a ``TrainerModel`` (an ``nn.Module`` with ``train_step`` / ``eval_step`` /
``get_criterion`` and optionally ``get_optimizer``, ``get_scheduler``, ``optimize``, ``format_batch`` and
callback hooks) under a ``Trainer`` built from ``TrainerArgs`` and a ``TrainerConfig`` (coqpit). Its
``Trainer.train_step`` formats the batch, runs ``optimize`` (forward under autocast, the loss divided by the
accumulation steps, backward, clipping or a grad norm, the optimizer and scheduler steps, the loss dict
detached to floats), keeps running averages and logs; with a list of optimizers it loops over them (GAN
training), and a model's own ``optimize`` replaces all that. So the tables cover, on a two-layer regressor
or a tiny generator / discriminator pair, batch 4:

- ``TRAIN``: ``Trainer.train_step`` under the config options that change the path: Adam and SGD with
  parameters, gradient clipping, the schedulers it knows by name (``NoamLR``, ``StepwiseGradualLR``, a torch
  one) and one the model gives, gradient accumulation (a step that only accumulates, one that steps, a loop of
  three), CPU mixed precision (bf16 autocast), the gradient scaler switched on, a list of optimizers with and without
  schedulers and clipping per optimizer, a model's own ``optimize`` with ``scaled_backward``, callbacks given
  to the trainer and hooks on the model, a model's ``format_batch`` / ``format_batch_on_device`` on a list
  batch, a model that returns no losses, and a step that prints nothing;
- ``CALLS``: ``Trainer.optimize`` and ``_compute_loss`` called directly, ``Trainer.eval_step`` (one
  optimizer, a list of them, a model's own ``optimize``, printed), ``format_batch``, ``_grad_clipping``
  and ``_compute_grad_norm`` after a backward pass, ``TrainerModel.scaled_backward``, ``detach_loss_dict``
  (with and without an optimizer index), the schedulers' ``step`` (``NoamLR``, ``StepwiseGradualLR``), and the
  utilities: ``KeepAverage`` on tensor losses, ``set_partial_state_dict`` with mismatched and re-initialized
  layers, ``get_optimizer`` / ``get_scheduler`` by name, ``to_cuda`` and ``count_parameters``.

Each trainer is built with ``parse_command_line_args=False``, a ``DummyLogger`` and its output folder in a
temporary directory; telemetry is switched off before the import. Random weights, nothing downloaded.
``names()`` needs no torch; ``build`` runs in a worker only.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

from typing import Any

Built = tuple[Any, tuple[Any, ...], dict[str, Any]]
BATCH = 4
WIDTH = 6

# Train model name -> (model kind, config overrides, trainer options).
TRAIN: dict[str, tuple[str, dict[str, Any], dict[str, Any]]] = {
    "Trainer.train_step": ("regressor", {}, {}),
    "Trainer.train_step.sgd_momentum": ("regressor", {"optimizer": "SGD", "optimizer_params": {"momentum": 0.9}}, {}),
    "Trainer.train_step.grad_clip": ("regressor", {"grad_clip": 0.5}, {}),
    "Trainer.train_step.noam": (
        "regressor", {"lr_scheduler": "NoamLR", "lr_scheduler_params": {"warmup_steps": 4}}, {}),
    "Trainer.train_step.stepwise_gradual": (
        "regressor",
        {"lr_scheduler": "StepwiseGradualLR",
         "lr_scheduler_params": {"gradual_learning_rates": [[0, 1e-3], [2, 5e-4], [10, 1e-4]]}},
        {},
    ),
    "Trainer.train_step.exponential_lr": (
        "regressor", {"lr_scheduler": "ExponentialLR", "lr_scheduler_params": {"gamma": 0.9}}, {}),
    "Trainer.train_step.scheduler_after_epoch": (
        "regressor", {"lr_scheduler": "StepLR", "lr_scheduler_params": {"step_size": 2},
                      "scheduler_after_epoch": True}, {}),
    "Trainer.train_step.model_scheduler": ("regressor_sched", {}, {}),
    "Trainer.train_step.grad_accum.accumulate": ("regressor", {}, {"grad_accum_steps": 2, "step": 0}),
    "Trainer.train_step.grad_accum.step": ("regressor", {"grad_clip": 1.0}, {"grad_accum_steps": 2, "step": 1}),
    "Trainer.train_step.grad_accum.loop": ("regressor", {"grad_clip": 1.0}, {"grad_accum_steps": 3, "steps": 3}),
    "Trainer.train_step.mixed_precision_bf16": ("regressor", {"mixed_precision": True, "precision": "bf16"}, {}),
    "Trainer.train_step.grad_scaler": ("regressor", {"use_grad_scaler": True, "grad_clip": 1.0}, {}),
    "Trainer.train_step.gan": ("gan", {}, {}),
    "Trainer.train_step.gan.grad_clip_list": ("gan", {"grad_clip": [1.0, 0.5]}, {}),
    "Trainer.train_step.gan.schedulers": ("gan_sched", {}, {}),
    "Trainer.train_step.custom_optimize": ("custom", {}, {}),
    "Trainer.train_step.custom_optimize.bf16": ("custom", {"mixed_precision": True, "precision": "bf16"}, {}),
    "Trainer.train_step.callbacks": ("regressor", {"grad_clip": 1.0}, {"callbacks": True}),
    "Trainer.train_step.model_hooks": ("hooked", {"grad_clip": 1.0}, {}),
    "Trainer.train_step.format_batch": ("list_batch", {}, {}),
    "Trainer.train_step.no_loss": ("no_loss", {}, {}),
    "Trainer.train_step.no_print": ("regressor", {"print_step": 1000, "plot_step": 1000}, {"steps_done": 3}),
}
CALLS = (
    "Trainer.optimize",
    "Trainer.optimize.grad_clip",
    "Trainer._compute_loss",
    "Trainer._compute_loss.bf16",
    "Trainer.eval_step",
    "Trainer.eval_step.print_eval",
    "Trainer.eval_step.gan",
    "Trainer.eval_step.custom_optimize",
    "Trainer.format_batch",
    "Trainer._grad_clipping",
    "Trainer._compute_grad_norm",
    "TrainerModel.scaled_backward",
    "NoamLR.step",
    "StepwiseGradualLR.step",
    "Trainer.detach_loss_dict",
    "Trainer.detach_loss_dict.optimizer_idx",
    "KeepAverage.update_values",
    "set_partial_state_dict",
    "get_optimizer.get_scheduler",
    "to_cuda",
    "count_parameters",
)


def names() -> list[str]:
    return list(TRAIN) + list(CALLS)


def _input(shape: tuple[int, ...], seed: int = 1) -> Any:
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _model(kind: str) -> Any:
    """A tiny ``TrainerModel`` of the given kind."""
    import torch
    from torch import nn
    from trainer import TrainerModel

    class Regressor(TrainerModel):
        """Two linear layers and an MSE criterion; ``train_step`` returns outputs and a loss dict."""

        def __init__(self) -> None:
            super().__init__()
            self.net = nn.Sequential(nn.Linear(WIDTH, 8), nn.Tanh(), nn.Linear(8, 1))

        def forward(self, x: torch.Tensor) -> dict[str, torch.Tensor]:  # type: ignore[override]
            return {"model_outputs": self.net(x)}

        def train_step(self, batch: dict[str, Any], criterion: nn.Module) -> tuple[dict, dict]:
            outputs = self.forward(batch["x"])
            loss = criterion(outputs["model_outputs"], batch["y"])
            return outputs, {"loss": loss, "l1": (outputs["model_outputs"] - batch["y"]).abs().mean()}

        @torch.no_grad()
        def eval_step(self, batch: dict[str, Any], criterion: nn.Module) -> tuple[dict, dict]:
            return self.train_step(batch, criterion)

        def get_criterion(self) -> nn.Module:
            return nn.MSELoss()

        def get_data_loader(self, *args: Any, **kwargs: Any) -> Any:
            return None

    class RegressorScheduler(Regressor):
        def get_scheduler(self, optimizer: Any) -> Any:
            return torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: 1.0 / (1 + step))

    class Hooked(Regressor):
        """Regressor with the callback hooks the trainer looks for on the model."""

        def __init__(self) -> None:
            super().__init__()
            self.seen = 0

        def on_train_step_start(self, trainer: Any) -> None:
            self.seen += 1

        def on_train_step_end(self, trainer: Any) -> None:
            self.seen += 1

        def before_backward_pass(self, loss_dict: dict, optimizer: Any) -> None:
            loss_dict["loss"] = loss_dict["loss"] + 0.0 * loss_dict["l1"]

        def before_gradient_clipping(self) -> None:
            for parameter in self.parameters():
                if parameter.grad is not None:
                    parameter.grad.mul_(0.5)

    class ListBatch(Regressor):
        """Takes a list batch from the loader and makes it a dict in ``format_batch``."""

        def format_batch(self, batch: Any) -> Any:
            return {"x": batch[0], "y": batch[1]}

        def format_batch_on_device(self, batch: Any) -> Any:
            batch["x"] = batch["x"] * 2.0
            return batch

    class NoLoss(Regressor):
        def train_step(self, batch: dict[str, Any], criterion: nn.Module) -> tuple[dict, dict]:
            return self.forward(batch["x"]), {}

    class Gan(TrainerModel):
        """A generator and a discriminator with one optimizer each (``optimizer_idx`` 0 and 1)."""

        def __init__(self) -> None:
            super().__init__()
            self.generator = nn.Sequential(nn.Linear(WIDTH, 8), nn.ReLU(), nn.Linear(8, WIDTH))
            self.discriminator = nn.Sequential(nn.Linear(WIDTH, 8), nn.LeakyReLU(0.2), nn.Linear(8, 1))

        def forward(self, x: torch.Tensor) -> dict[str, torch.Tensor]:  # type: ignore[override]
            return {"model_outputs": self.generator(x)}

        def train_step(self, batch: dict[str, Any], criterion: nn.Module, optimizer_idx: int) -> tuple[dict, dict]:
            fake = self.generator(batch["x"])
            if optimizer_idx == 0:
                logits = self.discriminator(fake)
                loss = criterion(logits, torch.ones_like(logits))
                return {"model_outputs": fake}, {"loss": loss}
            real = self.discriminator(batch["x"])
            fake_logits = self.discriminator(fake.detach())
            loss = criterion(real, torch.ones_like(real)) + criterion(fake_logits, torch.zeros_like(fake_logits))
            return {"model_outputs": real}, {"loss": loss, "d_real": real.mean()}

        @torch.no_grad()
        def eval_step(self, batch: dict[str, Any], criterion: nn.Module, optimizer_idx: int) -> tuple[dict, dict]:
            return self.train_step(batch, criterion, optimizer_idx)

        def get_optimizer(self) -> list[Any]:
            return [torch.optim.Adam(self.generator.parameters(), lr=1e-3),
                    torch.optim.SGD(self.discriminator.parameters(), lr=1e-2)]

        def get_criterion(self) -> nn.Module:
            return nn.BCEWithLogitsLoss()

        def get_data_loader(self, *args: Any, **kwargs: Any) -> Any:
            return None

    class GanScheduler(Gan):
        def get_scheduler(self, optimizer: Any) -> Any:
            return [torch.optim.lr_scheduler.ExponentialLR(optimizer[0], gamma=0.9),
                    torch.optim.lr_scheduler.StepLR(optimizer[1], step_size=1)]

    class Custom(Regressor):
        """A model with its own ``optimize``: forward, ``scaled_backward``, step and zero grad."""

        def optimize(self, batch: dict[str, Any], trainer: Any) -> tuple[dict, dict]:
            outputs, loss_dict = self.train_step(batch, trainer.criterion)
            self.scaled_backward(loss_dict["loss"], trainer, trainer.optimizer)
            trainer.optimizer.step()
            trainer.optimizer.zero_grad(set_to_none=True)
            return outputs, loss_dict

        @torch.no_grad()
        def eval_step(self, batch: dict[str, Any], trainer: Any) -> tuple[dict, dict]:  # type: ignore[override]
            return self.train_step(batch, trainer.criterion)

    kinds = {"regressor": Regressor, "regressor_sched": RegressorScheduler, "hooked": Hooked,
             "list_batch": ListBatch, "no_loss": NoLoss, "gan": Gan, "gan_sched": GanScheduler, "custom": Custom}
    return kinds[kind]()


def _trainer(kind: str, overrides: dict[str, Any] | None = None, callbacks: bool = False,
             grad_accum_steps: int = 1) -> Any:
    """A ``Trainer`` over a tiny model, its output folder in a temporary directory."""
    import tempfile

    from trainer import Trainer, TrainerArgs, TrainerConfig
    from trainer.generic_utils import KeepAverage
    from trainer.logging.dummy_logger import DummyLogger

    folder = tempfile.mkdtemp(prefix="gt_trainer_")
    settings: dict[str, Any] = {"output_path": folder, "run_name": "tiny", "optimizer": "Adam", "lr": 1e-3,
                                "grad_clip": 0.0, "print_step": 1, "plot_step": 1, "save_step": 100000,
                                "save_checkpoints": False, "run_eval": True}
    settings.update(overrides or {})
    config = TrainerConfig(**settings)
    args = TrainerArgs(grad_accum_steps=grad_accum_steps)
    hooks: dict[str, Any] = {}
    if callbacks:
        def count(trainer: Any) -> None:
            trainer.training_assets["count"] = trainer.training_assets.get("count", 0) + 1

        hooks = {"on_train_step_start": count, "on_train_step_end": count}
    trainer = Trainer(args, config, folder, model=_model(kind), dashboard_logger=DummyLogger(),
                      parse_command_line_args=False, callbacks=hooks, training_assets={})
    trainer.keep_avg_train = KeepAverage()
    trainer.keep_avg_eval = KeepAverage()
    return trainer


def _batch(seed: int = 1) -> tuple[Any, Any]:
    return _input((BATCH, WIDTH), seed), _input((BATCH, 1), seed + 1)


def _train(name: str) -> Built:
    import time

    import torch
    from trainer import Trainer

    from gt_calls import Run

    kind, overrides, options = TRAIN[name]
    trainer = _trainer(kind, overrides, callbacks=options.get("callbacks", False),
                       grad_accum_steps=options.get("grad_accum_steps", 1))
    trainer.total_steps_done = options.get("steps_done", 0)
    step = options.get("step", 0)
    steps = options.get("steps", 1)
    x, y = _batch()
    if kind == "gan" or kind == "gan_sched":
        y = _input((BATCH, WIDTH), 3)

    def run(owner: Any, x: torch.Tensor, y: torch.Tensor) -> Any:
        """One training step through the trainer, gradients on whatever the mode."""
        batch: Any = [x, y] if kind == "list_batch" else {"x": x, "y": y}
        with torch.enable_grad():
            owner.model.train()
            for offset in range(steps):
                _, loss_dict = owner.train_step(batch, 4, step + offset, time.time())
        return loss_dict

    return Run(trainer, run, [Trainer.train_step]), (x, y), {}


def _calls(name: str) -> Built:
    import torch
    from trainer import Trainer, TrainerModel
    from trainer.generic_utils import KeepAverage, count_parameters, set_partial_state_dict, to_cuda
    from trainer.trainer_utils import get_optimizer, get_scheduler
    from trainer.torch import NoamLR, StepwiseGradualLR

    from gt_calls import Call, Run

    x, y = _batch()
    if name.startswith("Trainer.optimize"):
        trainer = _trainer("regressor", {"grad_clip": 0.5} if name.endswith("grad_clip") else {})

        def optimize(owner: Any, x: torch.Tensor, y: torch.Tensor) -> Any:
            with torch.enable_grad():
                return owner.optimize({"x": x, "y": y}, owner.model, owner.optimizer, owner.scaler, owner.criterion,
                                      owner.scheduler, owner.config)

        return Run(trainer, optimize, [Trainer.optimize]), (x, y), {}
    if name.startswith("Trainer._compute_loss"):
        bf16 = {"mixed_precision": True, "precision": "bf16"}
        trainer = _trainer("regressor", bf16 if name.endswith("bf16") else {})

        def compute(owner: Any, x: torch.Tensor, y: torch.Tensor) -> Any:
            return owner._compute_loss({"x": x, "y": y}, owner.model, owner.criterion, owner.config, None)

        return Run(trainer, compute, [Trainer._compute_loss]), (x, y), {}
    if name.startswith("Trainer.eval_step"):
        kind = {"Trainer.eval_step.gan": "gan", "Trainer.eval_step.custom_optimize": "custom"}.get(name, "regressor")
        trainer = _trainer(kind, {"print_eval": name.endswith("print_eval")})
        if kind == "gan":
            y = _input((BATCH, WIDTH), 3)

        def evaluate(owner: Any, x: torch.Tensor, y: torch.Tensor) -> Any:
            owner.model.eval()
            return owner.eval_step({"x": x, "y": y}, 0)

        return Run(trainer, evaluate, [Trainer.eval_step]), (x, y), {}
    if name == "Trainer.format_batch":
        trainer = _trainer("list_batch")
        return Run(trainer, lambda owner, x, y: owner.format_batch([x, y]), [Trainer.format_batch]), (x, y), {}
    if name in ("Trainer._grad_clipping", "Trainer._compute_grad_norm", "TrainerModel.scaled_backward"):
        trainer = _trainer("regressor")

        def backward(owner: Any, x: torch.Tensor, y: torch.Tensor) -> Any:
            with torch.enable_grad():
                owner.optimizer.zero_grad()
                loss = owner.criterion(owner.model(x)["model_outputs"], y)
                if name == "TrainerModel.scaled_backward":
                    owner.model.scaled_backward(loss, owner, owner.optimizer)
                    return loss.detach()
                loss.backward()
            if name == "Trainer._grad_clipping":
                return owner._grad_clipping(grad_clip=0.1, optimizer=owner.optimizer, scaler=None)
            return owner._compute_grad_norm(owner.optimizer)

        entry = {"Trainer._grad_clipping": Trainer._grad_clipping, "Trainer._compute_grad_norm":
                 Trainer._compute_grad_norm, "TrainerModel.scaled_backward": TrainerModel.scaled_backward}[name]
        return Run(trainer, backward, [entry]), (x, y), {}
    if name in ("NoamLR.step", "StepwiseGradualLR.step"):
        net = torch.nn.Linear(WIDTH, 1)
        optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
        if name == "NoamLR.step":
            scheduler: Any = NoamLR(optimizer, warmup_steps=3)
        else:
            scheduler = StepwiseGradualLR(optimizer, [[0, 0.1], [2, 0.05], [5, 0.01]])

        def schedule(owner: Any, x: torch.Tensor) -> torch.Tensor:
            owner.step()
            return x * owner.get_last_lr()[0]

        return Run(scheduler, schedule, [type(scheduler).get_lr]), (x,), {}
    if name.startswith("Trainer.detach_loss_dict"):
        trainer = _trainer("regressor")
        index = 1 if name.endswith("optimizer_idx") else None

        def detach(owner: Any, x: torch.Tensor) -> Any:
            return owner.detach_loss_dict({"loss": x.pow(2).mean(), "aux": x.mean(), "count": 3}, True, index,
                                          x.norm())

        return Run(trainer, detach, [Trainer.detach_loss_dict]), (x,), {}
    if name == "KeepAverage.update_values":
        def average(owner: Any, x: torch.Tensor) -> Any:
            owner.update_values({"avg_loss": x.pow(2).mean(), "avg_aux": x.mean()})
            owner.update_values({"avg_loss": x.abs().mean(), "avg_aux": x.max()})
            owner.update_value("avg_ema", x.sum(), weighted_avg=True)
            owner.update_value("avg_ema", x.min(), weighted_avg=True)
            return owner["avg_loss"] + owner["avg_ema"]

        return Run(KeepAverage(), average, [KeepAverage.update_values, KeepAverage.update_value]), (x,), {}
    if name == "set_partial_state_dict":
        from dataclasses import dataclass, field

        from coqpit import Coqpit

        @dataclass
        class _Restore(Coqpit):
            reinit_layers: list = field(default_factory=lambda: ["net.2"])

        model = _model("regressor")
        other = torch.nn.Sequential(torch.nn.Linear(WIDTH, 8), torch.nn.Tanh(), torch.nn.Linear(8, 2))
        checkpoint = {f"net.{key}": value for key, value in other.state_dict().items()}
        checkpoint["extra.weight"] = torch.zeros(2)

        def restore(owner: Any, scale: torch.Tensor) -> Any:
            state = {key: value * scale for key, value in checkpoint.items()}
            return set_partial_state_dict(dict(owner.state_dict()), state, _Restore())

        return Run(model, restore, [set_partial_state_dict]), (torch.tensor(0.5),), {}
    if name == "get_optimizer.get_scheduler":
        model = _model("regressor")

        def setup(owner: Any, x: torch.Tensor) -> torch.Tensor:
            optimizer = get_optimizer("AdamW", {"weight_decay": 0.01}, 1e-3, owner)
            scheduler = get_scheduler("NoamLR", {"warmup_steps": 2}, optimizer)
            return owner(x)["model_outputs"] * scheduler.get_last_lr()[0]

        return Run(model, setup, [get_optimizer, get_scheduler]), (x,), {}
    if name == "to_cuda":
        return Call(to_cuda), (_input((BATCH, WIDTH)).t(),), {}
    model = _model("regressor")
    return Run(model, lambda owner, x: x * count_parameters(owner), [count_parameters]), (x,), {}


def build(name: str) -> Built:
    import os

    os.environ["TRAINER_TELEMETRY"] = "0"  # read when ``trainer.analytics`` is imported: no ping per trainer
    import torch
    import trainer.analytics

    trainer.analytics.telemetry = "0"

    torch.manual_seed(0)
    if name in TRAIN:
        return _train(name)
    return _calls(name)
