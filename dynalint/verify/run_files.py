"""Run files' ``exercise()`` functions under torch.compile and report the graph breaks Dynamo logs.

Verify stage of the dynalint pipeline, for whole files rather than snippets (``run_snippets``) or a
factory (``run_factory``): the fixture suite uses it to prove its ``# error:`` annotations.

Usage: ``python -m dynalint.verify.run_files [--timeout S] [--backend B] FILE...``

Each file is imported by path (a file inside a package, i.e. a folder with ``__init__.py``, is imported
under its dotted name with the package root's parent on ``sys.path``, so relative imports work; any
other file under its stem with its folder on ``sys.path``), then its module-level ``exercise()`` is
called. Import and call both run with ``torch.compile`` defaulting to ``--backend`` (``eager``: Dynamo
decides the breaks before any backend runs) and under ``record_breaks(<the file's folder>)``, so a
break anywhere in that folder is attributed to its own file and line. Dynamo state and configs are
reset between files; files that mention ``torch.distributed`` get a single-process gloo group.

stdout: ``{FILE: {"breaks": [{"file", "line", "gb_id", "reason"}, ...], "graphs": int, "error": str |
null}}`` with ``FILE`` as given, each break's ``file`` an absolute path and ``graphs`` the number of
graphs Dynamo captured (zero means nothing was compiled, so no break could have been seen); nothing
else (the files' own output goes to stderr).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import importlib.util
import json
import os
import sys
import traceback
import types
from pathlib import Path
from typing import Any

from dynalint.verify.observe import record_breaks, reset_dynamo
from dynalint.verify.run_snippets import (
    _ERROR_MAX,
    _USES_DIST,
    _default_backend,
    _destroy_process_group,
    _ensure_process_group,
    _restored_configs,
    _time_limit,
)

ENTRY_POINT = "exercise"


def _package_root(path: Path) -> Path | None:
    """The outermost folder of the package holding ``path``, or None when its folder is no package."""
    root = None
    folder = path.parent
    while (folder / "__init__.py").is_file():
        root = folder
        folder = folder.parent
    return root


def import_path(path: Path) -> types.ModuleType:
    """Import ``path`` as a module, making its package (if any) or its folder importable."""
    root = _package_root(path)
    if root is not None:
        search = str(root.parent)
        parts = path.relative_to(root.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
    else:
        search = str(path.parent)
        name = path.stem
    if search not in sys.path:
        sys.path.insert(0, search)
    if root is not None:
        module = importlib.import_module(name)
        loaded = getattr(module, "__file__", None)
        if loaded is None or Path(loaded).resolve() != path:
            raise ImportError(f"{name!r} resolved to {loaded}, not {path}")
        return module
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def run_one(path: Path, timeout: float = 0, backend: str | None = "eager") -> dict[str, Any]:
    """Import one file and call its ``exercise()``; return its breaks and error (``None`` when it ran)."""
    error: str | None = None
    with _restored_configs(), _default_backend(backend), record_breaks(str(path.parent)) as breaks:
        try:
            if _USES_DIST.search(path.read_text(encoding="utf-8")):
                _ensure_process_group()
            with _time_limit(timeout):
                module = import_path(path)
                exercise = getattr(module, ENTRY_POINT, None)
                if not callable(exercise):
                    raise AttributeError(f"{path.name} defines no {ENTRY_POINT}() function")
                exercise()
        except (Exception, SystemExit) as e:  # noqa: BLE001  (report, keep going)
            tail = "".join(traceback.format_exception(type(e), e, e.__traceback__)[-3:])
            error = f"{type(e).__name__}: {str(e).strip()}\n{tail}"[:_ERROR_MAX]
    import torch._dynamo.utils

    graphs = int(torch._dynamo.utils.counters["stats"]["unique_graphs"])
    reset_dynamo()
    return {
        "breaks": [
            {"file": os.path.abspath(b.filename), "line": b.line, "gb_id": b.gb_id, "reason": b.reason}
            for b in breaks
        ],
        "graphs": graphs,
        "error": error,
    }


def run_all(files: list[str], timeout: float = 0, backend: str | None = "eager") -> dict[str, dict[str, Any]]:
    import torch  # noqa: F401  (one import, paid once for all files)

    results: dict[str, dict[str, Any]] = {}
    try:
        for name in files:
            results[name] = run_one(Path(name).resolve(), timeout, backend)
    finally:
        _destroy_process_group()
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", metavar="FILE")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per file (0: none)")
    parser.add_argument("--backend", default="eager", help="default torch.compile backend ('none': torch's own)")
    args = parser.parse_args(argv)
    out = sys.stdout
    with contextlib.redirect_stdout(sys.stderr):  # stdout carries the JSON only
        results = run_all(args.files, args.timeout, None if args.backend == "none" else args.backend)
    json.dump(results, out, indent=2)
    out.write("\n")
    out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
