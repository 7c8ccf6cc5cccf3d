"""DYN004 on the methods a ``LightningModule`` inherits and calls on itself in its step: ``self.log(...)``.

lightning-uq-box's and nequip's ``training_step`` log their loss with ``self.log`` / ``self.log_dict``. Measured on
torch 2.13 with lightning 2.6 (``bench/skiplist/derive.py``, and again by the torch test here): ``log`` and
``log_dict`` break (GB0007). A method of the same name that a class of the project defines (a base of its own, or
the class itself) is what runs instead, and is not flagged; neither is a module's own call (``self.net(x)``). The base
is known under each name users import it by (``pytorch_lightning``, ``lightning``, ``lightning.pytorch``). The
static test needs no lightning; the torch test runs where lightning is installed (the bench's environment).
"""

from __future__ import annotations

import importlib.util
import textwrap

import pytest

from conftest import TORCHVISION_PRELUDE
from dynalint.api import lint_source
from dynalint.project.config import Config

# The bench's environment has the CUDA build of torchvision (the only one for torch 2.13), which lightning imports:
# the program first makes it importable on a CPU torch, as the bench does.
PREPARE = TORCHVISION_PRELUDE
PROGRAM = PREPARE + textwrap.dedent("""\
    import lightning.pytorch as pl
    import torch


    class Regressor(pl.LightningModule):
        def __init__(self):
            super().__init__()
            self.net = torch.nn.Linear(2, 1)

        def training_step(self, batch, batch_idx):
            x, y = batch
            loss = (self.net(x) - y).pow(2).mean()
            self.log("train_loss", loss)
            self.log_dict({"loss": loss})
            return loss


    class Quiet(pl.LightningModule):
        def __init__(self):
            super().__init__()
            self.net = torch.nn.Linear(2, 1)
            self.seen = []

        def log(self, name, value):
            self.seen.append(name)

        def training_step(self, batch, batch_idx):
            loss = self.net(batch[0]).mean()
            self.log("train_loss", loss)
            return loss


    batch = (torch.randn(4, 2), torch.randn(4, 1))
    regressor = Regressor()
    quiet = Quiet()
    torch.compile(regressor.training_step, backend="eager")(batch, 0)
    torch.compile(quiet.training_step, backend="eager")(batch, 0)
""")
FIRST = PREPARE.count("\n")  # lines before the body


def flagged() -> dict[int, str]:
    return {f.start.line - FIRST: f.message for f in lint_source(PROGRAM, "module.py", Config()) if f.code == "DYN004"}


def test_inherited_logging_methods_are_flagged_and_own_ones_are_not() -> None:
    found = flagged()
    assert sorted(found) == [13, 14]
    assert found[13].startswith("`lightning.pytorch.LightningModule.log()` cannot be traced by torch.compile (GB0007")
    assert found[14].startswith("`lightning.pytorch.LightningModule.log_dict()`")


def test_the_base_is_known_under_the_names_users_import_it_by() -> None:
    for spelling in ("import pytorch_lightning as pl", "import lightning as pl"):
        text = PROGRAM.replace("import lightning.pytorch as pl", spelling)
        lines = {f.start.line - FIRST for f in lint_source(text, "module.py", Config()) if f.code == "DYN004"}
        assert lines == {13, 14}, spelling


@pytest.mark.torch
def test_dynamo_breaks_where_dynalint_says() -> None:
    if importlib.util.find_spec("lightning") is None:
        pytest.skip("the measurement needs lightning installed")
    from conftest import dynamo_break_lines

    assert {line - FIRST for line in dynamo_break_lines(PROGRAM)} == set(flagged())
