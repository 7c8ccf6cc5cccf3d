"""Start-up imports only what the run needs (issue 11): no LibCST and no rule module for ``--version``,
for a run whose files hold no compiled code, or for one the cache answers; and the rule index that
selection reads instead of the rule classes says what the classes say.

Each run is a fresh interpreter that reports which modules it loaded, and what it found, so a run
that did nothing cannot pass. Speed itself is shown by ``bench/speed.py``, not here.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from dynalint.checks import ALL_RULES
from dynalint.checks.__main__ import index_text
from dynalint.model import selection

ROOT = Path(__file__).resolve().parent.parent

# Runs the CLI in-process with the given arguments, then prints the exit code and the heavy modules loaded.
CHILD = """\
import contextlib, io, json, sys
from dynalint.cli import main

out = io.StringIO()
with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
    try:
        main(sys.argv[1:], standalone_mode=False)
        status = 0
    except SystemExit as stop:
        status = stop.code
heavy = sorted(m for m in sys.modules if m == "libcst" or m.startswith("dynalint.checks") or m == "dynalint.lint.engine")
print(json.dumps({"status": status, "heavy": heavy, "out": out.getvalue()}))
"""

PLAIN = "import os\n\n\ndef helper(x):\n    print(x)\n    return os.path.join(x, 'y')\n"
COMPILED = "import torch\n\n\n@torch.compile\ndef f(x):\n    print(x)\n    return x\n"


def run_cli(cwd: Path, *args: str) -> dict:
    completed = subprocess.run([sys.executable, "-c", CHILD, *args], cwd=cwd, capture_output=True, text=True,
                               check=True)
    return json.loads(completed.stdout.splitlines()[-1])


def test_rule_index_matches_the_rule_classes() -> None:
    # The index is generated from the classes; after adding or changing a rule: python -m dynalint.checks
    assert selection.INDEX_PATH.read_text(encoding="utf-8") == index_text()
    assert [(e.code, e.name, e.default, e.torch) for e in selection.INDEX] == [
        (r.code, r.name, r.default, r.torch) for r in ALL_RULES
    ]


def test_selection_from_the_index_names_the_rules_the_classes_describe() -> None:
    expected = {
        (None, (), ()): [r.code for r in ALL_RULES if r.default],
        (("ALL",), (), ("DYN1",)): [r.code for r in ALL_RULES if not r.code.startswith("DYN1")],
        (("DYN1",), ("print-call",), ("DYN101",)):
            [r.code for r in ALL_RULES if (r.code.startswith("DYN1") and r.code != "DYN101") or r.name == "print-call"],
    }
    for (select, extend, ignore), codes in expected.items():
        resolved = [selection.resolve_selectors(s) if s is not None else None for s in (select, extend, ignore)]
        assert [e.code for e in selection.enabled_entries(resolved[0], resolved[1] or (), resolved[2] or ())] == codes
        assert codes  # every case above keeps some rule


def test_version_imports_no_stage(tmp_path: Path) -> None:
    ran = run_cli(tmp_path, "--version")
    assert ran["status"] == 0 and "version" in ran["out"]
    assert ran["heavy"] == []


def test_a_run_without_compiled_code_imports_no_libcst_or_rule(tmp_path: Path) -> None:
    (tmp_path / "plain.py").write_text(PLAIN, encoding="utf-8")
    ran = run_cli(tmp_path, "--no-cache", "--select", "ALL", "plain.py")
    assert ran["status"] == 0
    assert ran["heavy"] == []


@pytest.mark.parametrize("output_format", ["text", "json"])
def test_a_run_answered_from_the_cache_imports_no_libcst(tmp_path: Path, output_format: str) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.dynalint]\n", encoding="utf-8")
    (tmp_path / "model.py").write_text(COMPILED, encoding="utf-8")
    (tmp_path / "helper.py").write_text(PLAIN, encoding="utf-8")
    first = run_cli(tmp_path, "--output-format", output_format, "model.py")
    assert first["status"] == 1 and "DYN201" in first["out"]
    assert "libcst" in first["heavy"]  # the cold run lints with LibCST
    again = run_cli(tmp_path, "--output-format", output_format, "model.py")
    assert again["out"] == first["out"] and again["status"] == 1
    assert "libcst" not in again["heavy"]
