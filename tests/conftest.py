"""Shared test helpers. Static tests never import torch; tests marked ``torch`` run it in a subprocess.

A test run writes nothing into the checkout: Hypothesis keeps its files in a temporary folder, and a run
that adds a line to the checkout's ``git status`` (``checkout_status``) fails, with the paths listed.
"""

from __future__ import annotations

import atexit
import importlib.util
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import List, Optional, Set

import pytest

ROOT = Path(__file__).resolve().parent.parent
HARNESS = ROOT / "tests" / "harness"  # scripts that run code under real Dynamo for the torch tests
HAS_TORCH = importlib.util.find_spec("torch") is not None
# Lines a measured program starts with where it imports torchvision (or lightning, which does): the bench's
# environment has the only torchvision build for torch 2.13, a CUDA one, which imports on a CPU torch once the bench
# defines the schemas of its two operators (``bench/groundtruth/gt_models.allow_torchvision_import``).
TORCHVISION_PRELUDE = (f"import sys\nsys.path.insert(0, {str(ROOT / 'bench' / 'groundtruth')!r})\n"
                       "import gt_models\ngt_models.allow_torchvision_import()\n")


_CHECKOUT_BEFORE = pytest.StashKey[Optional[Set[str]]]()  # git status when the run started
_CHECKOUT_WRITTEN = pytest.StashKey[List[str]]()  # what the run added to it


def checkout_status(root: Path) -> set[str] | None:
    """``git status`` of ``root``, ignored and untracked files one by one, less what running Python
    always writes (``__pycache__``, ``.pytest_cache``) and virtual environments; ``None`` when ``root``
    is not the top of a git work tree (an unpacked sdist) or git is missing."""
    try:
        top = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=root, capture_output=True, text=True)
        if top.returncode != 0 or Path(top.stdout.strip()).resolve() != root.resolve():
            return None
        status = subprocess.run(
            ["git", "--no-optional-locks", "status", "--porcelain", "--ignored", "--untracked-files=all"],
            cwd=root, capture_output=True, text=True, check=True,
        )
    except (OSError, subprocess.CalledProcessError):
        return None
    venvs = {p.parent.name for p in root.glob("*/pyvenv.cfg")}
    lines = set()
    for line in status.stdout.splitlines():
        parts = line[3:].strip('"').split("/")
        if parts[0] in venvs or "__pycache__" in parts or ".pytest_cache" in parts:
            continue
        lines.add(line)
    return lines


def pytest_configure(config: pytest.Config) -> None:
    # Hypothesis writes ``.hypothesis/`` into the working folder unless told otherwise. Workers of
    # pytest-xdist inherit the variable, so the first process to get here makes the folder and removes it.
    if "HYPOTHESIS_STORAGE_DIRECTORY" not in os.environ:
        folder = tempfile.mkdtemp(prefix="dynalint-tests-hypothesis-")
        os.environ["HYPOTHESIS_STORAGE_DIRECTORY"] = folder
        config.add_cleanup(lambda: shutil.rmtree(folder, ignore_errors=True))


def _checks_the_checkout(config: pytest.Config) -> bool:
    """The single process of a run, or the controller of pytest-xdist (after all its workers are done)."""
    return not hasattr(config, "workerinput")


def pytest_sessionstart(session: pytest.Session) -> None:
    if _checks_the_checkout(session.config):
        session.config.stash[_CHECKOUT_BEFORE] = checkout_status(ROOT)


def pytest_sessionfinish(session: pytest.Session) -> None:
    before = session.config.stash.get(_CHECKOUT_BEFORE, None)
    if not _checks_the_checkout(session.config) or before is None:
        return
    after = checkout_status(ROOT)
    written = sorted((after or set()) - before)
    session.config.stash[_CHECKOUT_WRITTEN] = written
    if written and session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    written = config.stash.get(_CHECKOUT_WRITTEN, [])
    if written:
        terminalreporter.section("files the tests wrote into the checkout", red=True)
        for line in written[:50]:
            terminalreporter.line(line)
        terminalreporter.line(f"FAILED: the run changed {len(written)} path(s) of `git status` in {ROOT} "
                              "(a file edited by hand during the run shows here too)", red=True)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    skip = pytest.mark.skip(reason="torch is not installed (pip install -e '.[test]')")
    for item in items:
        if "torch" in item.keywords and not HAS_TORCH:
            item.add_marker(skip)


# What ``dynamo_break_lines`` observed, by program source: one harness run serves every test module's ``PROGRAM``.
_OBSERVED: dict[str, dict] = {}


def dynamo_break_lines(source: str) -> set[int]:
    """The lines where real Dynamo breaks the graph running ``source``, a whole program that must run without an
    error: what a torch test compares with the lines dynalint flags in the same program.

    The first call runs ``source`` together with the ``PROGRAM`` of every test module collected so far that has
    not run yet, in one harness process (torch is imported once, not once per module; the harness resets Dynamo
    between programs, as it does between a page's blocks), and later calls read what it observed."""
    if source not in _OBSERVED:
        pending = [source, *(p for p in _collected_programs() if p != source and p not in _OBSERVED)]
        results = run_snippets([{"id": str(index), "source": program} for index, program in enumerate(pending)])
        _OBSERVED.update((program, results[str(index)]) for index, program in enumerate(pending))
    result = _OBSERVED[source]
    assert result["error"] is None, result["error"]
    return {brk["line"] for brk in result["breaks"]}


def _collected_programs() -> list[str]:
    """The ``PROGRAM`` (and ``PROGRAM_<case>``) of each test module imported in this run (those with torch tests
    that compare lines)."""
    return [program for name, module in list(sys.modules.items()) if name.startswith("test_")
            for attr, program in list(vars(module).items())
            if (attr == "PROGRAM" or attr.startswith("PROGRAM_")) and isinstance(program, str)]


class _SnippetServer:
    """One ``run_snippets.py --serve`` process for the whole test run: torch is imported once, not once per torch
    test (about 4 s each on a 2-core machine). A request that kills it, or outlasts its time, fails that test
    alone; the next request starts a fresh process."""

    def __init__(self) -> None:
        self._process: subprocess.Popen[str] | None = None
        self._stderr = tempfile.TemporaryFile(mode="w+", encoding="utf-8")  # snippet output: a pipe could fill up

    def ask(self, snippets: list[dict[str, str]], timeout: float) -> dict[str, dict]:
        if self._process is None or self._process.poll() is not None:
            self._stderr.seek(0)
            self._stderr.truncate()
            self._process = subprocess.Popen(
                [sys.executable, str(HARNESS / "run_snippets.py"), "--serve"], stdin=subprocess.PIPE,
                stdout=subprocess.PIPE, stderr=self._stderr, text=True, cwd=ROOT,
                env={**os.environ, "PYTHONPATH": str(ROOT)})
        process = self._process
        assert process.stdin is not None and process.stdout is not None
        try:
            process.stdin.write(json.dumps(snippets) + "\n")
            process.stdin.flush()
            ready, _, _ = select.select([process.stdout], [], [], timeout)
            line = process.stdout.readline() if ready else ""
        except BrokenPipeError:
            line = ""
        if not line:
            process.kill()  # dead already, or still running what outlasted its time
            process.wait()
            self._process = None
            self._stderr.seek(0)
            raise AssertionError(f"the snippet harness gave no answer (within {timeout:.0f} s):\n"
                                 + self._stderr.read()[-4000:])
        return json.loads(line)

    def close(self) -> None:
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            assert process.stdin is not None
            process.stdin.close()
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


_SERVER = _SnippetServer()
atexit.register(_SERVER.close)


def run_snippets(snippets: list[dict[str, str]], timeout: float = 600, fresh: bool = False) -> dict[str, dict]:
    """Run programs under real Dynamo; ``{id: {"breaks": [...], "error": ...}}``. In the run's harness process, or
    with ``fresh`` in a process of their own, whose history is only theirs: some of Dynamo's answers depend on what
    the process ran before (the first ``torch.optim.Adam`` built in a process breaks with GB0467, a later one with
    GB0008, measured on torch 2.13), so what is compared with a table measured in a fresh process runs in one."""
    if not fresh:
        return _SERVER.ask(snippets, timeout)
    completed = subprocess.run(
        [sys.executable, str(HARNESS / "run_snippets.py")], input=json.dumps(snippets), capture_output=True,
        text=True, timeout=timeout, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert completed.returncode == 0, completed.stderr[-4000:]
    return json.loads(completed.stdout)
