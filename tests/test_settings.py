"""Settings that change what breaks: ``[tool.dynalint.dynamo]``, tree assignments, ``fullgraph``,
and ``target-torch`` against the rules' version ranges.

The claims themselves (``.item()`` does not break under ``capture_scalar_outputs`` or
``fullgraph=True``, ...) are proven under real Dynamo by the rule pages' "When this does not apply"
blocks; these tests show the linter reads each source of settings.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from dynalint.api import lint_source
from dynalint.checks.tensor_item import TensorItem
from dynalint.model import selection
from dynalint.project import torch_target
from dynalint.project.config import Config, ConfigError, parse

ITEM = """
import torch

@torch.compile{args}
def f(x: torch.Tensor) -> torch.Tensor:
    return x / x.max().item()
"""


def item_lines(source: str, config: Config | None = None) -> list[int]:
    config = config or Config(select=("DYN101",))
    return [f.start.line for f in lint_source(textwrap.dedent(source), "s.py", config)]


def test_item_is_flagged_by_default() -> None:
    assert item_lines(ITEM.format(args="")) == [6]


def test_fullgraph_at_the_compile_site_turns_on_scalar_capture() -> None:
    assert item_lines(ITEM.format(args="(fullgraph=True)")) == []


def test_config_assignment_in_the_tree_is_honoured() -> None:
    source = ITEM.format(args="") + "\ntorch._dynamo.config.capture_scalar_outputs = True\n"
    assert item_lines(source) == []


def test_dynamo_table_in_the_config_is_honoured(tmp_path: Path) -> None:
    config = parse({"select": ["DYN101"], "dynamo": {"capture-scalar-outputs": True}}, tmp_path / "pyproject.toml")
    assert item_lines(ITEM.format(args=""), config) == []


def test_logging_functions_from_the_config(tmp_path: Path) -> None:
    source = """
        import logging
        import torch
        logger = logging.getLogger(__name__)

        @torch.compile
        def f(x):
            logger.info("a")
            logger.debug("b")
            print("c")
            return x
    """
    table = {"dynamo": {"ignore-logging-functions": ["logging.Logger.info"], "reorderable-logging-functions": ["print"]}}
    config = parse(table, tmp_path / "pyproject.toml")
    assert [(f.start.line, f.code) for f in lint_source(textwrap.dedent(source), "s.py", config)] == [(9, "DYN202")]


@pytest.mark.parametrize(
    "table, named",
    [
        ({"dynamo": {"capture-scalars": True}}, "dynamo.capture-scalars"),
        ({"dynamo": {"capture-scalar-outputs": "yes"}}, "dynamo.capture-scalar-outputs"),
        ({"target-torch": "latest"}, "target-torch"),
    ],
)
def test_bad_settings_are_errors_naming_the_key(tmp_path: Path, table: dict, named: str) -> None:
    with pytest.raises(ConfigError, match=named.replace(".", r"\.")):
        parse(table, tmp_path / "pyproject.toml")


def test_target_torch_excludes_rules_outside_their_range(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(TensorItem, "torch", ">=2.4,<2.6")
    # Selection reads the rule index generated from the classes (selection.py): it says the same.
    monkeypatch.setattr(selection, "INDEX", tuple(
        entry._replace(torch=TensorItem.torch) if entry.code == TensorItem.code else entry for entry in selection.INDEX
    ))
    source = ITEM.format(args="")
    assert item_lines(source, Config(select=("DYN101",), target_torch="2.5")) == [6]
    assert item_lines(source, Config(select=("DYN101",), target_torch="2.13")) == []


def test_installed_torch_version_is_read_without_importing_torch() -> None:
    code = "import sys; from dynalint.project import torch_target; v = torch_target.target(None); print(v, 'torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out[1] == "False"
    assert torch_target.release(out[0]) >= (2, 4)


@pytest.mark.parametrize(
    "version, specifier, expected",
    [("2.13.0+cpu", ">=2.4", True), ("2.3.1", ">=2.4", False), ("2.5", ">=2.4,<2.6", True),
     ("2.6.0", ">=2.4,<2.6", False), ("2.13", "==2.13.0", True), ("2.13", "", True)],
)
def test_version_ranges(version: str, specifier: str, expected: bool) -> None:
    assert torch_target.in_range(version, specifier) is expected
