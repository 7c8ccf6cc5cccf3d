"""The README's install from a built wheel: ``pip wheel``, then ``pip install dist/*.whl`` into a fresh venv.

The wheel must carry the package and the rule pages (``dynalint/_rules``), and the installed command must
lint the bundled fixtures as the checkout does. Needs the package index (for hatchling and the
dependencies), as the README's own commands do; torch is not installed.
"""

from __future__ import annotations

import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_built_wheel_installs_in_a_fresh_venv_and_lints_the_fixtures(tmp_path: Path) -> None:
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "-w", str(tmp_path / "dist")],
                           capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stderr[-3000:]
    [wheel] = (tmp_path / "dist").glob("dynalint-*.whl")
    venv.create(tmp_path / "venv", with_pip=True)
    python = tmp_path / "venv" / "bin" / "python"
    installed = subprocess.run([str(python), "-m", "pip", "install", "-q", str(wheel)], capture_output=True, text=True,
                               timeout=600)
    assert installed.returncode == 0, installed.stderr[-3000:]
    command = tmp_path / "venv" / "bin" / "dynalint"
    linted = subprocess.run([str(command), "fixtures/", "--no-cache"], cwd=ROOT, capture_output=True, text=True,
                            timeout=600)
    assert linted.returncode == 1 and "Found " in linted.stderr and "Traceback" not in linted.stderr, linted.stderr[-3000:]
    checkout = subprocess.run([sys.executable, "-m", "dynalint", "fixtures/", "--no-cache"], cwd=ROOT,
                              capture_output=True, text=True, timeout=600)
    assert linted.stdout == checkout.stdout  # the same findings as the checkout's
    page = subprocess.run([str(command), "rule", "DYN101"], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert page.returncode == 0 and page.stdout.startswith("# DYN101 `tensor-item`") and "## Fix" in page.stdout
    where = subprocess.run([str(python), "-c", "import dynalint, torch"], capture_output=True, text=True, timeout=60)
    assert "No module named 'torch'" in where.stderr  # the static install never pulls torch
