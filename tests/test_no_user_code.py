"""The static linter reads the user's code and never runs it: no import, no ``exec``, no build hook.

A project whose every Python file would leave a marker file behind if it ran (at import, in the compiled
function, in ``setup.py``, ``conftest.py`` and a package ``__init__``) is linted every way a user runs
dynalint: the tree cold and warm, with one job and two, and one named file inside the project. Each
run must still report the compiled function's first break (the marker's ``Path.write_text``, DYN206, after which
Dynamo gives the function up, so its ``print`` is named as hidden), and no marker may appear.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _leaves_a_marker(name: str, markers: Path) -> str:
    return f"import pathlib\npathlib.Path({str(markers / name)!r}).write_text('ran')\n"


@pytest.fixture
def project(tmp_path: Path) -> tuple[Path, Path]:
    markers = tmp_path / "markers"
    markers.mkdir()
    root = tmp_path / "project"
    package = root / "pkg"
    package.mkdir(parents=True)
    (root / "pyproject.toml").write_text("[tool.dynalint]\n", encoding="utf-8")
    (root / "setup.py").write_text(_leaves_a_marker("setup", markers), encoding="utf-8")
    (root / "conftest.py").write_text(_leaves_a_marker("conftest", markers), encoding="utf-8")
    (package / "__init__.py").write_text(_leaves_a_marker("init", markers), encoding="utf-8")
    (package / "model.py").write_text(
        _leaves_a_marker("module", markers)
        + "import torch\n\n\n@torch.compile\ndef f(x):\n"
        + f"    pathlib.Path({str(markers / 'compiled')!r}).write_text('ran')\n"
        + "    print(x)\n    return x\n",
        encoding="utf-8",
    )
    return root, markers


@pytest.mark.parametrize("args", [
    ["--no-cache", "-j", "1", "."],
    ["--no-cache", "-j", "2", "."],
    [".", "--jobs", "2"],  # writes the cache, then the same run again answers from it
    ["pkg/model.py"],
], ids=["cold-serial", "cold-parallel", "cached", "one-named-file"])
def test_linting_runs_none_of_the_users_code(project: tuple[Path, Path], args: list[str]) -> None:
    root, markers = project
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for _ in range(2):
        completed = subprocess.run(
            [sys.executable, "-m", "dynalint", "--output-format", "concise", *args], cwd=root, env=env,
            capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL, check=False,
        )
        assert completed.returncode == 1, completed.stderr
        assert "DYN206 `Path.write_text()`" in completed.stdout and "(line 9)" in completed.stdout, completed.stdout
    assert sorted(p.name for p in markers.iterdir()) == []


def test_the_markers_appear_when_the_code_does_run(project: tuple[Path, Path]) -> None:
    """The control: without it, a marker that never worked would make the test above pass for nothing."""
    root, markers = project
    script = "import sys; sys.modules['torch'] = type(sys)('torch'); sys.modules['torch'].compile = lambda f: f\n" \
             "import pkg.model; pkg.model.f(0)\n"
    subprocess.run([sys.executable, "-c", script], cwd=root, check=True, capture_output=True, timeout=60)
    assert sorted(p.name for p in markers.iterdir()) == ["compiled", "init", "module"]
