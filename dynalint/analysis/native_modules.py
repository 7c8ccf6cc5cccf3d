"""Lint support, native modules: which third-party modules are compiled extensions, found on disk, never imported.

A function of a compiled extension (Cython, pybind11, a Rust binding: ``emd_c`` of POT's ``emd_wrap``, a
project's ``_C``) is native code Dynamo cannot step into: calling one from compiled code breaks the graph
at the call (measured on torch 2.13 with a Cython function: "Unsupported method call", GB0156, and with a
C function: GB0007). DYN004 asks this module whether the callee lives in one.

A module is native when its file is ``<name><suffix>`` for one of the interpreter's extension suffixes
(``importlib.machinery.EXTENSION_SUFFIXES``) with no ``<name>.py`` or ``<name>/`` package beside it. It is
looked for where the linted tree has the parent package (``Program.modules``), else in the installed
package, located by ``importlib.util.find_spec`` on its top-level name, which finds without importing. A name
an installed package's ``__init__`` re-exports from such a module (``pywt.Wavelet``) is native too.
The standard library (measured call by call in ``skipped_library_calls``) and the packages Dynamo has
its own support for (torch, NumPy) are never taken for native here.
"""

from __future__ import annotations

import ast
import functools
import importlib.machinery
import importlib.util
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from dynalint.analysis.skipped_library_calls import SKIPPED_LIBRARY_PACKAGES

if TYPE_CHECKING:
    from dynalint.analysis.program import Program

# Packages whose native functions Dynamo traces, or that other rules and tables speak for (DYN210 NumPy, the
# packages ``skipped_library_calls`` takes whole).
_KNOWN_PACKAGES = frozenset({"torch", "functorch", "triton", "numpy", "sympy", "typing_extensions",
                             *SKIPPED_LIBRARY_PACKAGES})


def native_callee(program: Program, qualified: str) -> str | None:
    """The native module that ``qualified`` (``pkg.ext.func``, ``pkg.ext.Class.method``) lives in, or ``None``."""
    parts = qualified.split(".")
    top = parts[0]
    if top in _KNOWN_PACKAGES or top in sys.stdlib_module_names or top in sys.builtin_module_names:
        return None
    for cut in range(len(parts) - 1, 0, -1):
        module = ".".join(parts[:cut])
        if module in program.modules:
            return None  # Python source of the tree
        if _is_native(program, module):
            return module
        reexported = _native_reexport(module, parts[cut])
        if reexported is not None:
            return reexported
    return None


def _native_reexport(package: str, name: str) -> str | None:
    """The native submodule an installed package's ``__init__`` takes ``name`` from: ``from ._ext import name``,
    or ``from ._ext import *`` where no Python module the ``__init__`` star-imports defines ``name`` at its top
    level (PyWavelets' ``pywt.Wavelet``, from ``pywt._extensions._pywt``). Read from the files, never imported."""
    folder = _installed_folder(package)
    if folder is None:
        return None
    named, starred, defined = _reexports(str(folder), package)
    if name in named:
        return named[name]
    return starred[0] if starred and name not in defined else None


@functools.lru_cache(maxsize=256)
def _reexports(folder: str, package: str) -> tuple[dict[str, str], tuple[str, ...], frozenset[str]]:
    """What ``folder/__init__.py`` takes from native submodules (by name, and those star-imported) and the names
    the Python submodules it star-imports define at their top level."""
    init = Path(folder) / "__init__.py"
    try:
        tree = ast.parse(init.read_text(encoding="utf-8", errors="replace"))
    except (OSError, SyntaxError, ValueError):
        return {}, (), frozenset()
    named: dict[str, str] = {}
    starred: list[str] = []
    defined: set[str] = set()
    for statement in tree.body:
        if not (isinstance(statement, ast.ImportFrom) and statement.level == 1 and statement.module):
            continue
        *parents, last = statement.module.split(".")
        home = Path(folder).joinpath(*parents)
        native = _extension_file(str(home), last)
        for alias in statement.names:
            if native and alias.name == "*":
                starred.append(f"{package}.{statement.module}")
            elif native:
                named[alias.asname or alias.name] = f"{package}.{statement.module}"
            elif alias.name == "*":
                defined |= _top_level_names(home / f"{last}.py")
    return named, tuple(starred), frozenset(defined)


def _top_level_names(path: Path) -> set[str]:
    """The names a Python module defines at its top level (functions, classes, assignments)."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8", errors="replace"))
    except (OSError, SyntaxError, ValueError):
        return set()
    names: set[str] = set()
    for statement in tree.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(statement.name)
        elif isinstance(statement, ast.Assign):
            names |= {t.id for t in statement.targets if isinstance(t, ast.Name)}
    return names


def _is_native(program: Program, module: str) -> bool:
    parent, _, name = module.rpartition(".")
    if not parent:
        return False  # a top-level extension module: too rarely a project's own to be worth the lookup
    package = program.modules.get(parent)
    if package is not None:
        folder: Path | None = Path(package.path).parent if package.path.endswith("__init__.py") else None
    else:
        folder = _installed_folder(parent)
    return folder is not None and _extension_file(str(folder), name)


@functools.lru_cache(maxsize=1024)
def _installed_folder(package: str) -> Path | None:
    """The folder of an installed package (``pkg.sub``), found from its top-level package without importing."""
    top, _, rest = package.partition(".")
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return None
    locations = list(spec.submodule_search_locations or ()) if spec is not None else []
    if not locations:
        return None
    folder = Path(locations[0]).joinpath(*rest.split(".")) if rest else Path(locations[0])
    return folder if folder.is_dir() else None


@functools.lru_cache(maxsize=4096)
def _extension_file(folder: str, name: str) -> bool:
    """Whether ``folder`` holds ``name`` as a compiled extension and not as Python source."""
    base = Path(folder)
    if (base / f"{name}.py").is_file() or (base / name).is_dir():
        return False
    return any((base / f"{name}{suffix}").is_file() for suffix in importlib.machinery.EXTENSION_SUFFIXES)
