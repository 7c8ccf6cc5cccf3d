"""DYN105 on the functions whose output size is set by tensor data whatever their arguments, and on
``F.one_hot`` left to count the classes itself.

Measured on torch 2.13 (the torch test below runs the program under Dynamo): ``torch.linalg.lstsq``
(any driver: its result holds the rank and singular values found) and ``torch.combinations`` (a mask
selects the pairs inside it) break with GB0036 even on inputs built from Python numbers, and
``F.one_hot(t)`` without ``num_classes``, or with -1, breaks with GB0246; given a class count, it does
not. Seen on the ground-truth bench: ``torch.linalg.lstsq(...).solution`` in pykan's and MONAI's fits,
``torch.combinations(torch.arange(n), r=2)`` in PyG's random graphs.
"""

from __future__ import annotations

import pytest

from dynalint.api import lint_source
from dynalint.project.config import Config

PROGRAM = """\
import torch
import torch.nn.functional as F
from torch.linalg import lstsq


def fit(a, y):
    return torch.linalg.lstsq(a, y).solution


def fit_imported(a, y):
    return lstsq(a, y, driver="gelsd").solution


def pairs(n: int, x):
    return torch.combinations(torch.arange(n), r=2).float().sum() + x


def labels(x):
    return F.one_hot((x > 0).long()).float()


def labels_minus_one(x):
    return torch.nn.functional.one_hot((x > 0).long(), num_classes=-1).float()


def labels_counted(x, classes: int):
    return F.one_hot((x > 0).long(), classes).float() + F.one_hot((x > 0).long(), num_classes=2).float()


a, y, x = torch.randn(6, 3), torch.randn(6, 1), torch.randn(5)
torch.compile(fit, backend="eager")(a, y)
torch.compile(fit_imported, backend="eager")(a, y)
torch.compile(pairs, backend="eager")(4, x)
torch.compile(labels, backend="eager")(x)
torch.compile(labels_minus_one, backend="eager")(x)
torch.compile(labels_counted, backend="eager")(x, 2)
"""
LINES = PROGRAM.splitlines()


def flagged() -> dict[str, str]:
    """The flagged lines' code -> the construct named in the message."""
    found = lint_source(PROGRAM, "fits.py", Config(select=("DYN105",)))
    return {LINES[f.start.line - 1].strip(): f.message.split(" in compiled code")[0] for f in found}


def test_lstsq_and_combinations_are_flagged_whatever_their_arguments() -> None:
    found = flagged()
    assert found["return torch.linalg.lstsq(a, y).solution"] == "`torch.linalg.lstsq()`"
    assert found['return lstsq(a, y, driver="gelsd").solution'] == "`torch.linalg.lstsq()`"
    assert found["return torch.combinations(torch.arange(n), r=2).float().sum() + x"] == "`torch.combinations()`"


def test_one_hot_is_flagged_only_when_it_counts_the_classes_from_the_data() -> None:
    found = flagged()
    assert found["return F.one_hot((x > 0).long()).float()"] == "`F.one_hot()` without `num_classes`"
    assert "return torch.nn.functional.one_hot((x > 0).long(), num_classes=-1).float()" in found
    assert not [line for line in found if "classes).float() +" in line]


def test_each_finding_names_the_graph_break_dynamo_reports() -> None:
    found = lint_source(PROGRAM, "fits.py", Config(select=("DYN105",)))
    assert {f.start.line: f.gb_ids for f in found if "one_hot" in f.message} == {19: ("GB0246",), 23: ("GB0246",)}
    assert all("GB0036" in f.gb_ids for f in found if "one_hot" not in f.message)


@pytest.mark.torch
def test_dynamo_breaks_where_dynalint_says() -> None:
    from conftest import dynamo_break_lines

    found = {f.start.line for f in lint_source(PROGRAM, "fits.py", Config(select=("DYN105",)))}
    assert dynamo_break_lines(PROGRAM) == found == {7, 11, 15, 19, 23}
