"""Shared test helpers. Static tests never import torch; tests marked ``torch`` run it in a subprocess."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HARNESS = ROOT / "tests" / "harness"  # scripts that run code under real Dynamo for the torch tests
HAS_TORCH = importlib.util.find_spec("torch") is not None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    skip = pytest.mark.skip(reason="torch is not installed (pip install -e '.[test]')")
    for item in items:
        if "torch" in item.keywords and not HAS_TORCH:
            item.add_marker(skip)


def run_snippets(snippets: list[dict[str, str]], timeout: float = 600) -> dict[str, dict]:
    """Run programs under real Dynamo in one subprocess; ``{id: {"breaks": [...], "error": ...}}``."""
    completed = subprocess.run(
        [sys.executable, str(HARNESS / "run_snippets.py")],
        input=json.dumps(snippets),
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert completed.returncode == 0, completed.stderr[-4000:]
    return json.loads(completed.stdout)
