"""The type checker passes on ``dynalint/``: mypy, configured by ``[tool.mypy]`` in pyproject.toml.

``python -m mypy`` from the repository root reads that config (which files, which checks); the test
is skipped only where mypy is not installed (the ``test`` extra installs it).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_mypy_reports_no_error_in_the_package(tmp_path: Path) -> None:
    pytest.importorskip("mypy")
    # Its cache goes to a temporary folder: the suite leaves the checkout as it found it.
    process = subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "mypy_cache")],
        cwd=ROOT, capture_output=True, text=True, timeout=900, check=False,
    )
    assert process.returncode == 0, process.stdout + process.stderr
