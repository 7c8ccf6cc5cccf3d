"""``conftest.checkout_status``: what the suite compares before and after a run, so that a test writing
into the checkout (a ``.dynalint_cache/`` in ``fixtures/``, say) fails the run."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import checkout_status

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def git(folder: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=folder, check=True,
                   capture_output=True)


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    root = tmp_path / "checkout"
    (root / "fixtures").mkdir(parents=True)
    (root / "fixtures" / "case.py").write_text("x = 1\n", encoding="utf-8")
    (root / ".gitignore").write_text(".dynalint_cache/\n.venv/\n__pycache__/\n", encoding="utf-8")
    (root / ".dynalint_cache").mkdir()
    (root / ".dynalint_cache" / "old.pack").write_bytes(b"")
    (root / ".venv").mkdir()
    (root / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n", encoding="utf-8")
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "base")
    return root


def test_new_files_show_even_inside_an_ignored_folder_that_existed(checkout: Path) -> None:
    before = checkout_status(checkout)
    assert before == {"!! .dynalint_cache/old.pack"}
    (checkout / ".dynalint_cache" / "new.pack").write_bytes(b"")
    (checkout / "fixtures" / ".dynalint_cache").mkdir()
    (checkout / "fixtures" / ".dynalint_cache" / "summaries.pack").write_bytes(b"")
    (checkout / "fixtures" / "case.py").write_text("x = 2\n", encoding="utf-8")
    (checkout / "notes.txt").write_text("", encoding="utf-8")
    after = checkout_status(checkout)
    assert after is not None
    assert sorted(after - before) == [
        " M fixtures/case.py",
        "!! .dynalint_cache/new.pack",
        "!! fixtures/.dynalint_cache/summaries.pack",
        "?? notes.txt",
    ]


def test_what_running_python_writes_is_left_out(checkout: Path) -> None:
    before = checkout_status(checkout)
    (checkout / "fixtures" / "__pycache__").mkdir()
    (checkout / "fixtures" / "__pycache__" / "case.cpython-311.pyc").write_bytes(b"")
    (checkout / ".pytest_cache").mkdir()
    (checkout / ".pytest_cache" / "README.md").write_text("", encoding="utf-8")
    (checkout / ".venv" / "lib").mkdir()
    (checkout / ".venv" / "lib" / "site.py").write_text("", encoding="utf-8")
    assert checkout_status(checkout) == before


def test_no_status_outside_the_top_of_a_git_work_tree(tmp_path: Path, checkout: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    assert checkout_status(plain) is None  # an unpacked sdist
    assert checkout_status(checkout / "fixtures") is None
