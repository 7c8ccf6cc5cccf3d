"""DYN004 on functions of compiled extension modules (``analysis/native_modules.py``).

Measured on torch 2.13: calling a C function of a third-party extension from compiled code breaks at the
call (``markupsafe._speedups._escape_inner``: GB0007), and so does a Cython function (POT's ``emd_c``:
GB0156, in the ground-truth bench). dynalint finds such modules on disk, never importing them: an
extension file (``name`` + an extension suffix) with no Python source of that name, in the linted tree or
in an installed package. The files here are empty stand-ins: only their names are read.
"""

from __future__ import annotations

import importlib.machinery
import textwrap
from pathlib import Path

import pytest

from dynalint.api import lint_paths
from dynalint.project.config import Config

SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]

MODEL = """\
    import torch

    from . import fast
    from .fast import solve
    from .helpers import tidy
    from native_stand_in_pkg._C import nms


    @torch.compile
    def step(x: torch.Tensor) -> torch.Tensor:
        y = solve(x)
        z = fast.refine(y)
        return tidy(x) + nms(z)
"""


@pytest.fixture(autouse=True)
def _own_cache_key(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("user-cache")))


def project(root: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    installed = root / "site"
    (installed / "native_stand_in_pkg").mkdir(parents=True)
    (installed / "native_stand_in_pkg" / "__init__.py").write_text("", encoding="utf-8")
    (installed / "native_stand_in_pkg" / f"_C{SUFFIX}").write_bytes(b"")
    monkeypatch.syspath_prepend(str(installed))
    tree = root / "tree"
    (tree / "pkg").mkdir(parents=True)
    (tree / "pyproject.toml").write_text("[tool.dynalint]\n", encoding="utf-8")
    (tree / "pkg" / "__init__.py").write_text("", encoding="utf-8")
    (tree / "pkg" / f"fast{SUFFIX}").write_bytes(b"")
    (tree / "pkg" / f"helpers{SUFFIX}").write_bytes(b"")  # built from helpers.py, which is there too
    (tree / "pkg" / "helpers.py").write_text("def tidy(x):\n    return x\n", encoding="utf-8")
    (tree / "pkg" / "model.py").write_text(textwrap.dedent(MODEL), encoding="utf-8")
    return tree


def found(tree: Path) -> list[tuple[int, str, str]]:
    result = lint_paths([str(tree)], Config(select=("DYN004",)), use_cache=False)
    return [(f.start.line, f.message.split("`")[1], f.confidence.value) for f in result.findings]


def test_calls_into_compiled_extensions_of_the_tree_and_of_installed_packages(tmp_path: Path,
                                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    assert found(project(tmp_path, monkeypatch)) == [
        (11, "pkg.fast.solve()", "likely"),
        (12, "pkg.fast.refine()", "likely"),
        (13, "native_stand_in_pkg._C.nms()", "likely"),
    ]  # not ``tidy``: a module with Python source is the tree's own code, whatever else sits beside it


def test_the_standard_library_and_torch_are_never_taken_for_native(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(textwrap.dedent("""\
        import math
        import _json

        import torch


        @torch.compile
        def f(x: torch.Tensor) -> torch.Tensor:
            return x * math.sqrt(2.0) + torch._C._get_tracing_state() is None
    """), encoding="utf-8")
    assert found(tmp_path) == []


REEXPORTS = """\
    import torch

    import reexporting_stand_in_pkg as pkg


    @torch.compile
    def step(x: torch.Tensor) -> torch.Tensor:
        w = pkg.Wavelet("db2")
        y = pkg.iou(x, x)
        return pkg.helper(x) + y
"""


def test_names_an_installed_package_reexports_from_its_compiled_extensions(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """PyWavelets' ``pywt.Wavelet`` comes from ``from ._extensions._pywt import *`` in ``pywt/__init__.py``: a
    Cython class (GB0156 at the call, measured on torch 2.13). A name one of the Python modules the
    ``__init__`` star-imports defines is that module's, not the extension's."""
    installed = tmp_path / "site" / "reexporting_stand_in_pkg"
    (installed / "_ext").mkdir(parents=True)
    (installed / "__init__.py").write_text(
        "from ._ext._core import *\nfrom ._C import box_iou as iou\nfrom ._python import *\n", encoding="utf-8")
    (installed / "_ext" / "__init__.py").write_text("", encoding="utf-8")
    (installed / "_ext" / f"_core{SUFFIX}").write_bytes(b"")
    (installed / f"_C{SUFFIX}").write_bytes(b"")
    (installed / "_python.py").write_text("def helper(x):\n    return x\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "pyproject.toml").write_text("[tool.dynalint]\n", encoding="utf-8")
    (tree / "model.py").write_text(textwrap.dedent(REEXPORTS), encoding="utf-8")
    assert found(tree) == [
        (8, "reexporting_stand_in_pkg.Wavelet()", "likely"), (9, "reexporting_stand_in_pkg.iou()", "likely"),
    ]
