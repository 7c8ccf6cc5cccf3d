"""Run files' ``exercise()`` functions under torch.compile and report the graph breaks Dynamo logs.

A test harness, not part of dynalint, for whole files rather than snippets (``run_snippets.py``) or a
factory (``run_factory.py``): ``tests/test_fixtures_dynamo.py`` uses it to prove the fixtures'
``# error:`` annotations, with the verify stage's own observer and user-code setting.

Usage: ``python tests/harness/run_files.py [--timeout S] [--backend B] FILE...``

Each file is imported by path (``dynalint.verify.usercode.import_path``: a file inside a package
under its dotted name, so relative imports work; any other file under its stem), then its
module-level ``exercise()`` is called. Import and call both run with ``torch.compile`` defaulting to
``--backend`` (``eager``: Dynamo decides the breaks before any backend runs) and under
``record_breaks(<the file's folder>)``, so a break anywhere in that folder is attributed to its own
file and line. Dynamo state and configs are reset between files; files that mention
``torch.distributed`` get a single-process gloo group.

stdout: ``{FILE: {"breaks": [{"file", "line", "gb_id", "reason"}, ...], "graphs": int, "error": str |
null}}`` with ``FILE`` as given, each break's ``file`` an absolute path and ``graphs`` the number of
graphs Dynamo captured (zero means nothing was compiled, so no break could have been seen); nothing
else (the files' own output goes to stderr).
"""

from __future__ import annotations

import os
import sys
import traceback
from pathlib import Path
from typing import Any

from run_snippets import answer_in_json, harness_parser, time_limit

from dynalint.verify.observe import record_breaks, reset_dynamo
from dynalint.verify.usercode import (
    ERROR_MAX,
    USES_DIST,
    default_backend,
    destroy_process_group,
    ensure_process_group,
    import_path,
    restored_configs,
)

ENTRY_POINT = "exercise"


def run_one(path: Path, timeout: float = 0, backend: str | None = "eager") -> dict[str, Any]:
    """Import one file and call its ``exercise()``; return its breaks and error (``None`` when it ran)."""
    error: str | None = None
    with restored_configs(), default_backend(backend), record_breaks(str(path.parent)) as breaks:
        try:
            if USES_DIST.search(path.read_text(encoding="utf-8")):
                ensure_process_group()
            with time_limit(timeout):
                module = import_path(path)
                exercise = getattr(module, ENTRY_POINT, None)
                if not callable(exercise):
                    raise AttributeError(f"{path.name} defines no {ENTRY_POINT}() function")
                exercise()
        except (Exception, SystemExit) as e:  # noqa: BLE001  (report, keep going)
            tail = "".join(traceback.format_exception(type(e), e, e.__traceback__)[-3:])
            error = f"{type(e).__name__}: {str(e).strip()}\n{tail}"[:ERROR_MAX]
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
        destroy_process_group()
    return results


def main(argv: list[str] | None = None) -> int:
    parser = harness_parser(__doc__.splitlines()[0], 300.0, "file")
    parser.add_argument("files", nargs="+", metavar="FILE")
    args = parser.parse_args(argv)
    return answer_in_json(lambda backend: run_all(args.files, args.timeout, backend), args.backend)


if __name__ == "__main__":
    sys.exit(main())
