"""Fetch the real-world corpora dynalint is measured on (nobody here wrote them).

- ``diffusers``: the pure-Python wheel from PyPI, unpacked (``pip download --no-deps``).
- ``torch/nn``: the ``nn`` package of the installed torch, located without importing torch.

Usage from other bench scripts: ``corpus.diffusers()`` / ``corpus.torch_nn()`` return source folders.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import zipfile
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


def torch_nn() -> Path:
    spec = importlib.util.find_spec("torch")
    if spec is None or spec.origin is None:
        raise SystemExit("torch is not installed: pip install torch==2.13.0")
    return Path(spec.origin).parent / "nn"


if __name__ == "__main__":
    print(diffusers())
    print(torch_nn())
