"""DYN202: a logger reached through another module of the tree.

cherry's algorithms log through the logger of its ``debug`` module: ``from cherry import debug``, then
``debug.logger.warning(...)`` inside the loss functions, with ``logger = logging.getLogger("cherry")`` at the top of
``cherry/debug.py``; ``from pkg.debug import logger`` is the other spelling. The receiver is then a module-level name
of another module of the tree bound to a ``getLogger`` call, a logger as surely as a local one (``certain``). Measured
on torch 2.13 by the torch test: the program breaks twice, on the two ``Logger`` calls (GB0291).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from dynalint.api import lint_paths
from dynalint.project.config import Config

DEBUG = """\
import logging

logger = logging.getLogger("pkg")
IS_DEBUGGING = True
"""

LOSSES = """\
import torch

from pkg import debug
from pkg.debug import logger


def policy_loss(log_probs, advantages):
    if debug.IS_DEBUGGING:
        if not log_probs.requires_grad:
            debug.logger.warning("policy_loss: log_probs.requires_grad is False.")
    logger.info("computing the loss")
    return -(log_probs * advantages).mean()
"""

ENTRY = """\
import torch

from pkg.losses import policy_loss

torch.compile(policy_loss, backend="eager")(torch.rand(3), torch.rand(3))
"""


def write_project(root: Path, debug: str = DEBUG) -> Path:
    (root / "pkg").mkdir()
    (root / "pkg" / "__init__.py").write_text("", encoding="utf-8")
    (root / "pkg" / "debug.py").write_text(debug, encoding="utf-8")
    (root / "pkg" / "losses.py").write_text(LOSSES, encoding="utf-8")
    (root / "train.py").write_text(ENTRY, encoding="utf-8")
    return root


def flagged(root: Path) -> list[tuple[str, int, str]]:
    result = lint_paths([str(root)], Config(select=("DYN202",)))
    return sorted((Path(f.filename).name, f.start.line, f.confidence.value) for f in result.findings)


def test_a_logger_of_another_module_is_a_logger(tmp_path: Path) -> None:
    assert flagged(write_project(tmp_path)) == [("losses.py", 10, "certain"), ("losses.py", 11, "certain")]


def test_another_module_level_object_is_not(tmp_path: Path) -> None:
    not_a_logger = DEBUG.replace('logging.getLogger("pkg")', "object()")
    # ``logger.info`` stays a likely one, by its name alone; ``debug.logger`` is not named as one
    assert flagged(write_project(tmp_path, not_a_logger)) == [("losses.py", 11, "likely")]


@pytest.mark.torch
def test_dynamo_breaks_on_each_logger_call(tmp_path: Path) -> None:
    from conftest import run_snippets

    root = write_project(tmp_path)
    source = f"import sys\nsys.path.insert(0, {str(root)!r})\n" + ENTRY
    result = run_snippets([{"id": "logger", "source": source}])["logger"]
    assert result["error"] is None
    assert [brk["gb_id"] for brk in result["breaks"]] == ["GB0291"] * len(flagged(root))
