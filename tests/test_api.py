"""The public API the README documents: ``dynalint.lint_source``, ``dynalint.lint_paths``, ``Config``, ``Finding``."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import dynalint

COMPILED = textwrap.dedent("""\
    import torch


    @torch.compile
    def step(x):
        print(x)
        if x.sum() > 0:
            return x
        return -x
""")


def test_the_package_names_its_api() -> None:
    assert set(dynalint.__all__) == {"Config", "Finding", "__version__", "lint_paths", "lint_source"}
    for name in dynalint.__all__:
        assert getattr(dynalint, name) is not None


def test_lint_source_reports_the_compiled_lines() -> None:
    findings = dynalint.lint_source(COMPILED, path="model.py")
    assert all(isinstance(f, dynalint.Finding) for f in findings)
    assert [(f.filename, f.start.line, f.code) for f in findings] == [("model.py", 6, "DYN201"), ("model.py", 7, "DYN102")]


def test_lint_source_follows_the_config() -> None:
    findings = dynalint.lint_source(COMPILED, config=dynalint.Config(select=("DYN1",)))
    assert [f.code for f in findings] == ["DYN102"]


def test_lint_paths_lints_a_folder_under_the_config_given(tmp_path: Path) -> None:
    (tmp_path / "model.py").write_text(COMPILED, encoding="utf-8")
    # A nearer pyproject.toml would switch DYN201 off for the command line; the API's config wins.
    (tmp_path / "pyproject.toml").write_text('[tool.dynalint]\nignore = ["DYN201"]\n', encoding="utf-8")
    result = dynalint.lint_paths([str(tmp_path)], dynalint.Config(root=tmp_path))
    assert result.files_checked == 1
    assert [(Path(f.filename).name, f.code) for f in result.findings] == [("model.py", "DYN201"), ("model.py", "DYN102")]


def test_importing_the_package_imports_no_stage() -> None:
    code = "import sys, dynalint; print(sorted(m for m in sys.modules if m == 'libcst' or m.startswith('dynalint.')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['dynalint.model', 'dynalint.model.version']"
