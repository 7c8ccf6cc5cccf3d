"""Regions reached through what a value's name names, when nothing else says what it holds.

A framework keeps what its user hands it and calls it later: gpytorch's ``ApproximateGP`` stores
``self.variational_strategy = variational_strategy`` and calls it; its ``_VariationalStrategy.__call__`` reads
``self.variational_params_initialized.item()``. Linted alone, the library never passes a strategy, so the call
resolved to nothing and the ``.item()`` was outside every region (a miss of the ground truth). The value's name
names its class, by the snake-case convention (``named_classes.py``): ``variational_strategy`` holds a
``VariationalStrategy`` or a class whose name ends so. The torch test runs the library with a driver, as its users
do, and Dynamo breaks on the lines dynalint flags in the library linted alone (measured on torch 2.13).
"""

from __future__ import annotations

import pytest

from dynalint.analysis.named_classes import MAX_NAMED_CLASSES, NamedClasses, class_name_for
from dynalint.api import lint_source
from dynalint.project.config import Config

LIBRARY = """\
import torch
from torch import nn


class _VariationalStrategy(nn.Module):
    def __init__(self, size: int):
        super().__init__()
        self.register_buffer("initialized", torch.tensor(0))
        self.weight = nn.Parameter(torch.randn(size, size))

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        if not self.initialized.item():
            self.initialized.fill_(1)
        return super().__call__(x)


class VariationalStrategy(_VariationalStrategy):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x @ self.weight


class LossTracker:
    def __init__(self):
        self.total = 0.0

    def update(self, loss: torch.Tensor) -> float:
        self.total += loss.item()
        return self.total


class RunningAverage:
    def __init__(self):
        self.values = []

    def update(self, value: torch.Tensor) -> None:
        self.values.append(value.item())


class ApproximateModel(nn.Module):
    def __init__(self, variational_strategy, tracker):
        super().__init__()
        self.variational_strategy = variational_strategy
        self.loss_tracker = tracker

    def forward(self, x):
        out = self.variational_strategy(x)
        self.loss_tracker.update(out.sum())
        return out


def record(loss: torch.Tensor, running_average) -> torch.Tensor:
    running_average.update(loss)
    return loss * 2
"""

DRIVER = """

model = ApproximateModel(VariationalStrategy(3), LossTracker())
torch.compile(model, backend="eager")(torch.randn(4, 3))
torch.compile(record, backend="eager")(torch.randn(()), RunningAverage())
"""

PROGRAM = LIBRARY + DRIVER
LINES = LIBRARY.splitlines()


def line_of(text: str) -> int:
    return next(number for number, line in enumerate(LINES, 1) if text in line)


def flagged(source: str = LIBRARY) -> set[int]:
    """The lines DYN101 flags in the library linted alone, ``record`` declared compiled (as a project's
    ``compiled`` setting declares a function its users compile)."""
    config = Config(select=("DYN101",), compiled=("strategies.record",))
    return {f.start.line for f in lint_source(source, "strategies.py", config)}


def test_a_stored_parameter_is_called_as_the_class_its_name_names() -> None:
    assert line_of("if not self.initialized.item():") in flagged()


def test_a_stored_parameter_s_method_is_the_method_of_the_class_its_name_names() -> None:
    """``self.loss_tracker.update(...)``: ``update`` is a ``dict`` method's name too, so the method's name alone is
    not followed (``Program._by_name``); the attribute's name is, to ``LossTracker.update``."""
    assert line_of("self.total += loss.item()") in flagged()


def test_a_parameter_s_method_is_the_method_of_the_class_its_name_names() -> None:
    assert line_of("self.values.append(value.item())") in flagged()


def test_a_name_that_names_no_class_reaches_nothing() -> None:
    renamed = LIBRARY.replace("self.loss_tracker", "self.helper").replace("running_average", "sink")
    assert flagged(renamed) == {line_of("if not self.initialized.item():")}


def test_a_value_given_in_the_class_is_not_taken_by_its_name() -> None:
    """``self.loss_tracker = RunningAverage()`` in the class: the tree says what it holds, so its name is not asked."""
    given = LIBRARY.replace("self.loss_tracker = tracker", "self.loss_tracker = RunningAverage()")
    assert flagged(given) == {line_of("if not self.initialized.item():"), line_of("self.values.append(value.item())")}


def test_a_copy_of_a_stored_parameter_is_taken_as_the_parameter() -> None:
    """``self.loss_tracker = copy.deepcopy(tracker)`` (pytorch-metric-learning copies the reducer it is given): the
    copy holds an instance of the class of what was handed in, so the name still names it."""
    copied = LIBRARY.replace("self.loss_tracker = tracker", "self.loss_tracker = copy.deepcopy(tracker)").replace(
        "import torch\n", "import copy\n\nimport torch\n", 1)
    shift = 2  # the two lines the import adds
    assert flagged(copied) == {line_of("if not self.initialized.item():") + shift,
                               line_of("self.total += loss.item()") + shift,
                               line_of("self.values.append(value.item())") + shift}


@pytest.mark.torch
def test_dynamo_breaks_where_dynalint_says() -> None:
    from conftest import dynamo_break_lines

    assert dynamo_break_lines(PROGRAM) == flagged() == {
        line_of("if not self.initialized.item():"), line_of("self.total += loss.item()"),
        line_of("self.values.append(value.item())")}


def test_a_snake_case_name_spells_its_class_name() -> None:
    assert class_name_for("variational_strategy") == "VariationalStrategy"
    assert class_name_for("_reducer_") == "Reducer"


def test_classes_whose_names_end_with_it_are_named_too() -> None:
    classes = NamedClasses(["pkg.VariationalStrategy", "pkg._VariationalStrategy", "pkg.mt.LMCVariationalStrategy",
                            "pkg.Strategy", "pkg.StrategyHelper"])
    assert classes.named("variational_strategy") == [
        "pkg.VariationalStrategy", "pkg._VariationalStrategy", "pkg.mt.LMCVariationalStrategy"]


def test_a_short_name_names_none_and_one_naming_too_many_names_those_of_exactly_its_name() -> None:
    many = [f"pkg.Kind{index}Block" for index in range(MAX_NAMED_CLASSES + 1)]
    assert NamedClasses([*many, "pkg.Op"]).named("block") == []
    assert NamedClasses([*many, "pkg.Op"]).named("op") == []
    assert NamedClasses([*many, "pkg.Block", "pkg.base._Block"]).named("block") == ["pkg.Block", "pkg.base._Block"]
    assert NamedClasses(many[:MAX_NAMED_CLASSES]).named("block") == many[:MAX_NAMED_CLASSES]



IMPORTED = """\
import torch
from torch import nn


class CrossAttention(nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x
        return -x


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.attention = nn.MultiheadAttention(4, 1)

    def forward(self, x):
        return self.attention(x, x, x)[0]


torch.compile(Block())
"""


def test_a_value_built_from_an_imported_class_is_not_taken_by_its_name() -> None:
    """``self.attention = nn.MultiheadAttention(...)``: torch's class, outside the tree, is what it holds; the tree's
    ``CrossAttention`` is not reached from the compiled ``Block`` (its ``forward`` stays a ``likely`` region of its
    own, with no compile site)."""
    found = lint_source(IMPORTED, "blocks.py", Config(select=("DYN102",)))
    assert [(f.start.line, f.confidence.value) for f in found] == [(7, "likely")]
    assert found[0].region is not None and "Block.forward" not in found[0].region.describe()
