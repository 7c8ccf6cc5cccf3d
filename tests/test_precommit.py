"""The pre-commit hook works as a user installs it: real ``pre-commit try-repo`` in a real git repository.

``try-repo`` clones the hook repository, builds a virtualenv and pip-installs dynalint into it, then
runs the ``dynalint`` hook of ``.pre-commit-hooks.yaml`` on the files given. The hook repository is a
snapshot of this working tree (tracked and untracked, not ignored files) committed to a temporary git
repository: ``try-repo`` on the checkout itself would only carry committed and *tracked* modified files
(its shadow commit does ``git add -u``), so a new module not yet added to git would be missing from the
installed hook. Each case pays for its own install (about five seconds; it needs the package index):
``try-repo`` always installs into a throwaway store, whatever ``PRE_COMMIT_HOME`` says. The module
still points ``PRE_COMMIT_HOME`` at a temporary folder so that nothing is written to the user's cache.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PRE_COMMIT = Path(sys.executable).parent / "pre-commit"
GIT = shutil.which("git")

pytestmark = pytest.mark.skipif(
    not PRE_COMMIT.exists() or GIT is None, reason="needs git and pre-commit next to the test interpreter"
)

VIOLATING = """\
import torch

@torch.compile
def f(x):
    print("hi")
    return x + 1
"""
CLEAN = VIOLATING.replace('    print("hi")\n', "")


def _env(home: Path) -> dict[str, str]:
    # Keep the user's git identity, hooks and signing settings (and any GIT_DIR of an outer hook) out.
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "PRE_COMMIT"))}
    env.update(PRE_COMMIT_HOME=str(home), GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1")
    return env


def _git(repo: Path, env: dict[str, str], *args: str) -> None:
    assert GIT is not None
    subprocess.run([GIT, *args], cwd=repo, env=env, check=True, capture_output=True, timeout=120)


def _commit_all(repo: Path, env: dict[str, str]) -> None:
    _git(repo, env, "init", "-q")
    _git(repo, env, "config", "user.email", "dynalint-tests@example.com")
    _git(repo, env, "config", "user.name", "dynalint tests")
    _git(repo, env, "config", "commit.gpgsign", "false")
    _git(repo, env, "add", "-A")
    _git(repo, env, "commit", "-q", "-m", "snapshot")


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("pre-commit-home")


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory: pytest.TempPathFactory, pre_commit_home: Path) -> Iterator[Path]:
    assert GIT is not None
    listed = subprocess.run(
        [GIT, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT, capture_output=True, timeout=60, check=False,
    )
    if listed.returncode != 0:
        pytest.skip("not a git checkout: nothing to snapshot for try-repo")
    snapshot = tmp_path_factory.mktemp("hook-repo")
    for name in filter(None, listed.stdout.decode().split("\0")):
        source = ROOT / name
        if source.is_file():  # listed but deleted in the working tree: leave it out
            (snapshot / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, snapshot / name)
    assert (snapshot / ".pre-commit-hooks.yaml").is_file()
    _commit_all(snapshot, _env(pre_commit_home))
    yield snapshot


def _try_repo(hook_repo: Path, home: Path, project: Path, *files: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(PRE_COMMIT), "try-repo", str(hook_repo), "dynalint", "--color", "never", "--files", *files],
        cwd=project, env=_env(home), capture_output=True, text=True, timeout=600,
    )


def _project(root: Path, home: Path, files: dict[str, str]) -> Path:
    root.mkdir()
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    _commit_all(root, _env(home))
    return root


def test_hook_fails_on_a_violating_file_and_skips_config_excluded_ones(
    hook_repo: Path, pre_commit_home: Path, tmp_path: Path
) -> None:
    project = _project(
        tmp_path / "user",
        pre_commit_home,
        {
            "bad.py": VIOLATING,
            "pyproject.toml": '[tool.dynalint]\nexclude = ["generated/*"]\n',
            "generated/bad.py": VIOLATING,  # pre-commit names it explicitly: the hook's --force-exclude skips it
        },
    )
    completed = _try_repo(hook_repo, pre_commit_home, project, "bad.py", "generated/bad.py")
    output = completed.stdout + completed.stderr
    assert completed.returncode == 1, output
    assert re.search(r"^bad\.py:5:\d+: DYN201 ", output, re.MULTILINE), output
    assert "generated/bad.py:" not in output
    assert "Traceback" not in output


def test_hook_passes_on_a_clean_file(hook_repo: Path, pre_commit_home: Path, tmp_path: Path) -> None:
    project = _project(tmp_path / "user", pre_commit_home, {"good.py": CLEAN})
    completed = _try_repo(hook_repo, pre_commit_home, project, "good.py")
    output = completed.stdout + completed.stderr
    assert completed.returncode == 0, output
    assert re.search(r"^dynalint\.+Passed$", output, re.MULTILINE), output


def test_hook_lints_a_notebook_cell_by_cell_beside_a_python_file(
    hook_repo: Path, pre_commit_home: Path, tmp_path: Path
) -> None:
    # `types_or: [python, pyi, jupyter]`: pre-commit hands the hook the notebook too, and its finding is
    # placed in its cell (the second cell: the first is markdown).
    import json

    notebook = {
        "cells": [
            {"cell_type": "markdown", "metadata": {}, "source": ["# Notes\n"]},
            {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
             "source": VIOLATING.splitlines(keepends=True)},
        ],
        "metadata": {"kernelspec": {"language": "python", "name": "python3"}},
        "nbformat": 4, "nbformat_minor": 5,
    }
    project = _project(tmp_path / "user", pre_commit_home, {"x.py": VIOLATING, "nb.ipynb": json.dumps(notebook)})
    completed = _try_repo(hook_repo, pre_commit_home, project, "x.py", "nb.ipynb")
    output = completed.stdout + completed.stderr
    assert completed.returncode == 1, output
    assert re.search(r"^x\.py:5:\d+: DYN201 ", output, re.MULTILINE), output
    assert re.search(r"^nb\.ipynb:cell 2:5:\d+: DYN201 ", output, re.MULTILINE), output
    assert "Traceback" not in output
