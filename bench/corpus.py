"""Fetch the real-world corpora dynalint is measured on (nobody here wrote them); it measures nothing itself.

    python bench/corpus.py    # fetch both into ~/.cache/dynalint-bench/ and print their folders

- ``diffusers``: the pure-Python wheel from PyPI, unpacked (``pip download --no-deps``).
- ``torch/nn``: the ``nn`` package of the installed torch, located without importing torch and copied out
  of ``site-packages`` (which linters exclude by default).

Usage from other bench scripts: ``corpus.diffusers()`` / ``corpus.torch_nn()`` return source folders;
``corpus.installed("diffusers")`` the folder of an installed package, where pip put it.
"""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
import zipfile
from importlib import metadata
from pathlib import Path

CACHE = Path.home() / ".cache" / "dynalint-bench"
DIFFUSERS_VERSION = "0.42.1"


def diffusers(version: str = DIFFUSERS_VERSION) -> Path:
    target = CACHE / f"diffusers-{version}"
    package = target / "diffusers"
    if package.is_dir():
        return package
    target.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", f"diffusers=={version}", "-d", str(target)],
        check=True,
    )
    wheel = next(target.glob("diffusers-*.whl"))
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(target)
    return package


def installed(package: str) -> Path:
    """The folder of the installed top-level ``package``, found without importing it."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit(f"{package} is not installed: pip install {package}")
    return Path(next(iter(spec.submodule_search_locations))).resolve()


def torch_nn() -> Path:
    """A copy of the installed torch's ``nn`` package (a copy: linters skip ``site-packages`` paths)."""
    spec = importlib.util.find_spec("torch")
    if spec is None or spec.origin is None:
        raise SystemExit("torch is not installed: pip install torch==2.13.0")
    source = Path(spec.origin).parent / "nn"
    version = metadata.version("torch")
    package = CACHE / f"torch-{version}" / "torch"
    target = package / "nn"
    if not target.is_dir():
        shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))
        # Keep ``torch.nn...`` module names (an empty ``torch`` package around the copy), so that names
        # resolve as in the installed tree: ``torch.nn.modules.module.Module`` is the module base class.
        (package / "__init__.py").write_text("", encoding="utf-8")
    return target


if __name__ == "__main__":
    print(diffusers())
    print(torch_nn())
