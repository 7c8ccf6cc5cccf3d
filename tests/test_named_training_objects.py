"""DYN509: an optimizer or an AMP loss scaler known by its name where the framework hands it over.

Training frameworks rarely build the optimizer where they step it. skorch looks it up, ``optimizer = getattr(self,
name + "_")``; pytorch-accelerated stores the caller's, then replaces it with what its accelerator's ``prepare``
returns (``self.optimizer = prepared_components[1]``); torchbearer keeps it in a state dict, ``state[OPTIMIZER]``;
torchtnt's ``grad_scaler = self.grad_scaler`` holds what a factory made. In each the name is what says it is one, so
each is flagged ``likely``: a local or ``self`` attribute named as an optimizer (``optimizer``, ``base_optimizer``)
that no class is known to build, an item under a key so named, and a value named as the loss scaler
(``grad_scaler``, ``amp_scaler``) for its ``scale`` / ``unscale_`` / ``step`` / ``update``. Measured on torch 2.13 by
the torch test: ``zero_grad()`` (GB0008), ``step()`` (GB0025) and ``scale()`` (GB0008) break on the flagged lines.

The same holds for a learning-rate scheduler named ``lr_scheduler`` (skorch's ``lr_scheduler.step(score)`` and
``self.lr_scheduler_.get_last_lr()``), not for another ``*_scheduler`` (diffusers' ``noise_scheduler.step()`` is a
sampler of the tree), and for a loader named ``train_dl`` (DYN510; pytorch-accelerated's loops): GB0008 on each.

A GAN has two optimizers, named by what they train: torchgan's losses take ``optimizer_generator`` and
``optimizer_discriminator`` and step them in ``train_ops``; ``optimizer_<word>`` is taken as an optimizer too (GB0008
and GB0025 on the flagged lines, measured).
"""

from __future__ import annotations

import pytest

from dynalint.api import lint_source
from dynalint.project.config import Config

PROGRAM = """\
import torch

OPTIMIZER = "optimizer"


def prepare(*components):
    return list(components)


class Trainer:
    def __init__(self, model, optimizer, scaler):
        self.model = model
        self.optimizer = optimizer
        self.grad_scaler = scaler
        self._optimizers = ["optimizer"]

    def setup(self):
        prepared = prepare(self.model, self.optimizer)
        self.optimizer = prepared[1]

    def zero_all(self):
        for name in self._optimizers:
            optimizer = getattr(self, name)
            optimizer.zero_grad()

    def step(self, x):
        loss = self.model(x).sum()
        self.optimizer.step()
        return loss

    def scaled_step(self, x):
        grad_scaler = self.grad_scaler
        loss = grad_scaler.scale(self.model(x).sum())
        return loss

    def state_step(self, state):
        state[OPTIMIZER].zero_grad()
        return state["x"] * 2


model = torch.nn.Linear(3, 3)
trainer = Trainer(model, torch.optim.SGD(model.parameters(), lr=0.1), torch.amp.GradScaler("cpu"))
trainer.setup()
torch.compile(trainer.zero_all, backend="eager")()
torch.compile(trainer.step, backend="eager")(torch.rand(2, 3))
torch.compile(trainer.scaled_step, backend="eager")(torch.rand(2, 3))
torch.compile(trainer.state_step, backend="eager")({OPTIMIZER: trainer.optimizer, "x": torch.rand(2)})
"""


def line_of(text: str) -> int:
    return PROGRAM.splitlines().index(text) + 1


def flagged(source: str = PROGRAM) -> set[int]:
    return {f.start.line for f in lint_source(source, "trainer.py", Config(select=("DYN509",)))}


def test_named_optimizers_and_scalers_are_flagged_likely() -> None:
    found = lint_source(PROGRAM, "trainer.py", Config(select=("DYN509",)))
    assert {(f.start.line, f.confidence.value) for f in found} == {
        (line_of("            optimizer.zero_grad()"), "likely"), (line_of("        self.optimizer.step()"), "likely"),
        (line_of("        loss = grad_scaler.scale(self.model(x).sum())"), "likely"),
        (line_of("        state[OPTIMIZER].zero_grad()"), "likely")}


def test_a_value_a_class_builds_is_not_one_whatever_its_name() -> None:
    built = PROGRAM.replace("import torch\n", "import torch\nfrom rich.progress import Progress\n", 1).replace(
        "optimizer = getattr(self, name)", "optimizer = Progress()").replace(
        "grad_scaler = self.grad_scaler", "grad_scaler = Progress()")
    assert flagged(built) == {line_of("        self.optimizer.step()") + 1, line_of("        state[OPTIMIZER].zero_grad()") + 1}


def test_other_names_and_keys_are_not_optimizers() -> None:
    renamed = PROGRAM.replace("state[OPTIMIZER]", "state[MODEL]").replace("grad_scaler", "grad_scale")
    assert line_of("        state[OPTIMIZER].zero_grad()") not in flagged(renamed)
    assert line_of("        loss = grad_scaler.scale(self.model(x).sum())") not in flagged(renamed)


@pytest.mark.torch
def test_dynamo_breaks_where_dynalint_says() -> None:
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(PROGRAM) == flagged()


PROGRAM_SCHEDULERS_AND_LOADERS = """\
import torch
from torch.utils.data import DataLoader, TensorDataset


class Callback:
    def __init__(self, lr_scheduler, noise_scheduler):
        self.lr_scheduler_ = lr_scheduler
        self.noise_scheduler = noise_scheduler

    def step(self, lr_scheduler, score):
        lr_scheduler.step()
        self.noise_scheduler.step()
        return score * 2

    def last(self, x):
        lrs = self.lr_scheduler_.get_last_lr()
        return x * lrs[0]

    def epoch(self, model, train_dl):
        total = 0
        for batch in train_dl:
            total = total + model(batch[0]).sum()
        return total


class Noise:
    def step(self):
        return 1


model = torch.nn.Linear(3, 3)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 2)
callback = Callback(scheduler, Noise())
torch.compile(callback.step, backend="eager")(scheduler, torch.rand(2))
torch.compile(callback.last, backend="eager")(torch.rand(2))
torch.compile(callback.epoch, backend="eager")(model, DataLoader(TensorDataset(torch.rand(4, 3)), batch_size=2))
"""


def test_a_value_named_as_a_learning_rate_scheduler_or_a_loader_is_likely_one() -> None:
    found = lint_source(PROGRAM_SCHEDULERS_AND_LOADERS, "callback.py", Config(select=("DYN509", "DYN510")))
    assert [(f.start.line, f.code, f.confidence.value) for f in found] == [
        (11, "DYN509", "likely"), (16, "DYN509", "likely"), (21, "DYN510", "likely")]


@pytest.mark.torch
def test_dynamo_breaks_where_a_named_scheduler_or_loader_is_used() -> None:
    from conftest import dynamo_break_lines

    found = lint_source(PROGRAM_SCHEDULERS_AND_LOADERS, "callback.py", Config())
    assert dynamo_break_lines(PROGRAM_SCHEDULERS_AND_LOADERS) == {f.start.line for f in found}


PROGRAM_GAN = """\
import torch


class GeneratorLoss:
    def train_ops(self, generator, discriminator, optimizer_generator, optimizer_config, noise):
        optimizer_generator.zero_grad()
        loss = -discriminator(generator(noise)).mean()
        optimizer_generator.step()
        return loss * optimizer_config["scale"]


generator, discriminator = torch.nn.Linear(4, 3), torch.nn.Linear(3, 1)
optimizer = torch.optim.Adam(generator.parameters())
loss_fn = GeneratorLoss()
torch.compile(loss_fn.train_ops, backend="eager")(generator, discriminator, optimizer, {"scale": 2.0}, torch.rand(2, 4))
"""


def test_an_optimizer_named_for_what_it_trains_is_likely_one() -> None:
    found = lint_source(PROGRAM_GAN, "losses.py", Config(select=("DYN509",)))
    assert {(f.start.line, f.confidence.value) for f in found} == {(6, "likely"), (8, "likely")}


@pytest.mark.torch
def test_dynamo_breaks_where_a_gans_optimizer_is_stepped() -> None:
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(PROGRAM_GAN) == flagged(PROGRAM_GAN)
