"""The static linter never imports torch: linting compiled code must not pay torch's import cost.

Each entry point (the ``api``, the click command in-process, and ``python -m dynalint`` through
``runpy``) runs in a fresh interpreter over a folder of compiled code, then reports which ``torch``
modules ended up in ``sys.modules``. The findings are reported too, so that a linter that silently did
nothing cannot pass.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

COMPILED = """\
import logging

import torch

logger = logging.getLogger(__name__)


@torch.compile
def f(x):
    print("hi")
    logger.info("hi")
    return x.sum().item() + 1
"""

# The last line the child prints is a JSON object: the codes found and the torch modules loaded.
PRELUDE = """\
import contextlib, io, json, runpy, sys

def torch_modules():
    return sorted(m for m in sys.modules if m == "torch" or m.startswith("torch."))

folder = sys.argv[1]
"""

ENTRY_POINTS = {
    "api": """\
from dynalint.api import lint_paths
from dynalint.project.config import Config

codes = sorted(f.code for f in lint_paths([folder], Config()).findings)
""",
    "cli": """\
from dynalint.cli import main

out = io.StringIO()
with contextlib.redirect_stdout(out):
    try:
        main([folder, "--quiet", "--output-format", "json"], standalone_mode=False)
    except SystemExit:
        pass
codes = sorted(f["code"] for f in json.loads(out.getvalue()))
""",
    "runpy": """\
out = io.StringIO()
sys.argv = ["dynalint", folder, "--quiet", "--output-format", "json"]
with contextlib.redirect_stdout(out):
    try:
        runpy.run_module("dynalint", run_name="__main__", alter_sys=True)
    except SystemExit:
        pass
codes = sorted(f["code"] for f in json.loads(out.getvalue()))
""",
}

EPILOGUE = """\
print(json.dumps({"codes": codes, "torch_modules": torch_modules()}))
"""


@pytest.mark.parametrize("entry_point", sorted(ENTRY_POINTS))
def test_linting_compiled_code_does_not_import_torch(entry_point: str, tmp_path: Path) -> None:
    folder = tmp_path / "project"
    folder.mkdir()
    (folder / "model.py").write_text(COMPILED, encoding="utf-8")
    script = PRELUDE + ENTRY_POINTS[entry_point] + EPILOGUE
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    completed = subprocess.run(
        [sys.executable, "-c", script, str(folder)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=120,
    )
    assert completed.returncode == 0, completed.stderr
    report = json.loads(completed.stdout.strip().splitlines()[-1])
    assert "DYN201" in report["codes"], f"linting produced no print-call finding: {report['codes']}"
    assert report["torch_modules"] == [], f"{entry_point} imported torch: {report['torch_modules'][:10]}"
