"""Version matrix: every rule page's blocks run under several torch releases, written as ``rules/versions.json``.

    python bench/versions/matrix.py [--release 2.13.0 --release 2.14.1 ...] [--out rules/versions.json]
                                    [--venvs ~/.cache/dynalint-bench/torch-venvs] [--timeout 120]

For each release it makes (or reuses) a virtual environment ``<venvs>/<release>`` holding
``torch==<release>``, dynalint's own light requirements (read from ``pyproject.toml``) and the libraries
the pages import (``PAGE_LIBRARIES``); dynalint itself is not installed there but put on ``PYTHONPATH``,
so one environment serves every checkout. It then runs every Example, Use-instead and
When-this-does-not-apply block of every page through ``tests/harness/run_snippets.py`` with that
environment's Python, in the modes the page tests use, on the CPU (``CUDA_VISIBLE_DEVICES`` empty), and
reduces each result with ``observations.observed``, the reduction the page tests check the committed
matrix with. The file holds exactly the releases asked for; its ``about`` key describes the schema.
Then it makes the linter's version table from it (``table.py`` -> ``dynalint/model/torch_releases.py``).

Standard library only (any Python 3.11 runs it); torch runs only in the subprocesses. See ``README.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import subprocess
import sys
import time
import tomllib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]  # the checkout
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import observations  # noqa: E402  (bench/versions/, put on sys.path above)

from dynalint.lint import rule_pages  # noqa: E402

HARNESS = ROOT / "tests" / "harness" / "run_snippets.py"
DEFAULT_RELEASES = ("2.11.0", "2.13.0", "2.14.1")
DEFAULT_OUT = ROOT / "rules" / "versions.json"
VENVS = Path.home() / ".cache" / "dynalint-bench" / "torch-venvs"
# What the pages import besides torch and the standard library (DYN209, DYN210), at the versions the
# test environment has, so that no release is measured against other libraries than another.
PAGE_LIBRARIES = ("numpy==2.4.6", "tqdm==4.70.1", "scipy==1.17.1", "tensordict==0.14.3")
INSTALLED_LIST = "dynalint-matrix-requirements.txt"  # written into a venv once it is filled
_RELEASE = re.compile(r"^\d+\.\d+\.\d+$")
_EXPANDED = {(), ("about",), ("blocks",), ("releases",), ("releases", "*"), ("releases", "*", "blocks")}


def dynalint_requirements() -> list[str]:
    """``[project].dependencies`` of ``pyproject.toml``: what the harness's dynalint imports need."""
    with open(ROOT / "pyproject.toml", "rb") as f:
        return list(tomllib.load(f)["project"]["dependencies"])


def requirements(release: str) -> list[str]:
    return [f"torch=={release}", *dynalint_requirements(), *PAGE_LIBRARIES]


def venv_python(venv: Path) -> Path:
    return venv / "bin" / "python"


def fill_commands(venv: Path, release: str, python: str) -> list[list[str]]:
    """The commands that create ``venv`` (when it is missing) and install what the harness needs."""
    pip = [str(venv_python(venv)), "-m", "pip", "install", "--disable-pip-version-check", "--quiet"]
    create = [] if venv_python(venv).exists() else [[python, "-m", "venv", str(venv)]]
    return create + [pip + [f"torch=={release}"], pip + requirements(release)[1:]]


def installed_torch(python: Path) -> str | None:
    """The torch version installed for ``python``, read from package metadata; ``None`` when absent."""
    probe = "import importlib.metadata as m\ntry: print(m.version('torch'))\nexcept m.PackageNotFoundError: pass"
    done = subprocess.run([str(python), "-c", probe], capture_output=True, text=True)
    if done.returncode != 0:
        return None
    return done.stdout.strip() or None


def python_version(python: Path) -> str:
    done = subprocess.run([str(python), "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                          capture_output=True, text=True, check=True)
    return done.stdout.strip()


def is_filled(venv: Path, release: str) -> bool:
    """The venv exists, holds ``torch==release`` and was filled with today's requirements."""
    python = venv_python(venv)
    listed = venv / INSTALLED_LIST
    if not python.exists() or not listed.exists():
        return False
    version = installed_torch(python)
    return (version is not None and observations.release_numbers(version) == release
            and listed.read_text(encoding="utf-8").splitlines() == requirements(release))


def ensure_venv(venv: Path, release: str, python: str) -> None:
    """Create or update ``venv`` for ``release``; a filled one is reused as it is."""
    if is_filled(venv, release):
        return
    for command in fill_commands(venv, release, python):
        print("+", " ".join(command), file=sys.stderr, flush=True)
        subprocess.run(command, check=True)
    version = installed_torch(venv_python(venv))
    if version is None or observations.release_numbers(version) != release:
        raise SystemExit(f"{venv}: asked for torch {release}, pip installed {version}")
    (venv / INSTALLED_LIST).write_text("\n".join(requirements(release)) + "\n", encoding="utf-8")


def run_blocks(python: Path, snippets: list[dict[str, Any]], timeout: float) -> dict[str, dict[str, Any]]:
    """``tests/harness/run_snippets.py`` under ``python``: ``{block id: result}``."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "CUDA_VISIBLE_DEVICES": ""}
    done = subprocess.run([str(python), str(HARNESS), "--timeout", str(timeout)], input=json.dumps(snippets),
                          capture_output=True, text=True, cwd=ROOT, env=env)
    if done.returncode != 0:
        raise SystemExit(f"{HARNESS.name} failed under {python}:\n{done.stderr[-4000:]}")
    results: dict[str, dict[str, Any]] = json.loads(done.stdout)
    return results


def release_entry(python: Path, pages: dict[str, rule_pages.Page], timeout: float) -> dict[str, Any]:
    """One release of the matrix: its torch and Python, and every block's observation."""
    examples, clean = observations.page_blocks(pages)
    blocks = examples + clean
    results = run_blocks(python, observations.harness_snippets(blocks, pages), timeout)
    return {
        "torch": installed_torch(python),
        "python": python_version(python),
        "blocks": {block.id: observations.observed(block, pages[block.page].kind, results[block.id])
                   for block in blocks},
    }


def matrix(releases: dict[str, dict[str, Any]], pages: dict[str, rule_pages.Page]) -> dict[str, Any]:
    examples, clean = observations.page_blocks(pages)
    return {
        "about": observations.SCHEMA,
        "blocks": {block.id: observations.block_description(block, pages[block.page].kind)
                   for block in examples + clean},
        "releases": releases,
    }


def as_text(data: dict[str, Any]) -> str:
    """The matrix as JSON, keys sorted: one line per block (per release), the levels above indented."""
    return _render(data, (), 0) + "\n"


def _render(value: Any, path: tuple[str, ...], depth: int) -> str:
    if not _is_expanded(path) or not isinstance(value, (dict, list)) or not value:
        return json.dumps(value, sort_keys=True, ensure_ascii=False)
    inner = " " * (depth + 1)
    if isinstance(value, list):
        items = [inner + _render(item, path + ("*",), depth + 1) for item in value]
        return "[\n" + ",\n".join(items) + "\n" + " " * depth + "]"
    items = [f"{inner}{json.dumps(key)}: {_render(value[key], path + (key,), depth + 1)}" for key in sorted(value)]
    return "{\n" + ",\n".join(items) + "\n" + " " * depth + "}"


def _is_expanded(path: tuple[str, ...]) -> bool:
    """The levels written one item a line: the file, ``about``, ``blocks``, ``releases``, each release and
    its ``blocks``; what lies below (one block's description or observation) is written on one line."""
    if path[:1] == ("releases",) and len(path) > 1:
        path = ("releases", "*") + path[2:]  # any release
    return path in _EXPANDED


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--release", action="append", dest="releases", metavar="X.Y.Z",
                        help=f"a torch release to measure (repeatable; default {' and '.join(DEFAULT_RELEASES)})")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="the JSON file to write")
    parser.add_argument("--venvs", type=Path, default=VENVS, help="where the per-release venvs live")
    parser.add_argument("--python", default=sys.executable, help="the Python that creates the venvs (3.11)")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per block")
    args = parser.parse_args(argv)
    releases = sorted(set(args.releases or DEFAULT_RELEASES), key=lambda r: tuple(map(int, r.split("."))))
    if bad := [r for r in releases if not _RELEASE.match(r)]:
        parser.error(f"a release is X.Y.Z: {', '.join(bad)}")
    pages = rule_pages.load_pages()
    measured = {}
    for release in releases:
        venv = args.venvs / release
        started = time.monotonic()
        ensure_venv(venv, release, args.python)
        ready = time.monotonic()
        measured[release] = release_entry(venv_python(venv), pages, args.timeout)
        print(f"torch {measured[release]['torch']}: venv {ready - started:.0f} s, blocks "
              f"{time.monotonic() - ready:.0f} s ({venv}, {platform.machine()})", file=sys.stderr, flush=True)
    args.out.write_text(as_text(matrix(measured, pages)), encoding="utf-8")
    print(f"wrote {args.out}", file=sys.stderr)
    # The linter's version table, from the matrix just written (``table.py`` lints the Examples: it runs
    # with a venv's Python, which has dynalint's requirements).
    table = [str(venv_python(args.venvs / releases[0])), str(Path(__file__).with_name("table.py")), "--matrix",
             str(args.out)]
    subprocess.run(table, check=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    return 0


if __name__ == "__main__":
    sys.exit(main())
