"""Ground-truth bench, one model in one process: compile it for real and write what Dynamo did.

    python bench/groundtruth/gt_worker.py MODEL_ID OUT.json

Builds the model (``gt_models.build``), then compiles and calls it twice with ``backend="eager"``,
once in eval mode under ``no_grad`` and once in train mode, each time through the observers
``--verify`` uses (``dynalint.verify.observe``): every graph break from the ``graph_breaks`` artifact
(its line is the innermost frame inside the library's installed folder, else the frame Dynamo names),
less the record of an exception the model raised (``verdicts.graph_breaks``), every line of the
library that Dynamo traced (``trace_source``), and the library code the compiled model enters
(``gt_calls.entry_points``: what the static side declares compiled). The driver (``groundtruth.py``) runs this under a time
limit, so a crash or a hang costs one model.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
import traceback
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))  # the checkout's dynalint
sys.path.insert(0, str(HERE))

import gt_models  # noqa: E402


def _relative(path: str, folders: tuple[str, ...]) -> str | None:
    """``path`` relative to the library's folder (as imported or resolved), or None when outside it; for a
    library that is one module, its file's name."""
    for folder in folders:
        if path == folder:
            return os.path.basename(path)
        if path.startswith(folder + os.sep):
            return os.path.relpath(path, folder)
    return None


def observe(model: Any, args: tuple[Any, ...], kwargs: dict[str, Any], mode: str, folder: str) -> dict[str, Any]:
    """Compile and call ``model`` in ``mode`` (``eval`` or ``train``) and return what Dynamo did."""
    import torch

    from dynalint.verify.observe import CountingBackend, parse_record, record_breaks, record_traced_lines
    from dynalint.verify.protocol import JobResult
    from dynalint.verify.usercode import restored_configs
    from dynalint.verify.verdicts import graph_breaks

    folders = tuple(dict.fromkeys((folder, os.path.realpath(folder))))
    counting = CountingBackend("eager")
    error, site = None, None
    started = time.perf_counter()
    model.train(mode == "train")
    grad = torch.no_grad() if mode == "eval" else contextlib.nullcontext()
    with restored_configs(), record_breaks(folder) as breaks, record_traced_lines(folder) as traced:
        try:
            compiled = torch.compile(model, backend=counting)
            with grad:
                compiled(*args, **kwargs)
                compiled(*args, **kwargs)
        except torch._dynamo.exc.Unsupported as exc:
            breaks.append(parse_record(str(exc), folder))
        except Exception as exc:  # the model failed on its inputs: keep what was observed until then
            frame = traceback.extract_tb(exc.__traceback__)[-1] if exc.__traceback__ else None
            error = f"{type(exc).__name__}: {str(exc).strip()[:300]}"
            site = (frame.filename, frame.lineno or 0) if frame else None
    result = JobResult("model", error=error, breaks=tuple(breaks), traced=tuple(traced), error_site=site)
    kept = graph_breaks(result)
    return {
        "error": error,
        "seconds": round(time.perf_counter() - started, 2),
        "graphs": counting.graphs,
        "breaks": [dict(b.as_dict(), rel=_relative(b.filename, folders)) for b in kept],
        "traced": sorted({(rel, line) for f, line in traced if (rel := _relative(f, folders)) is not None}),
    }


def _version(library: str, package: Any) -> str:
    """The library's ``__version__``, else its distribution's (``esm`` is ``fair-esm``; pina sets ``__version__``
    to ``None``)."""
    from importlib import metadata

    if getattr(package, "__version__", None):
        return str(package.__version__)
    try:
        return metadata.version(metadata.packages_distributions().get(library, [library])[0])
    except metadata.PackageNotFoundError:
        return "?"


def run(model_id: str) -> dict[str, Any]:
    import importlib

    import torch
    from gt_calls import entry_points

    torch.set_num_threads(1)
    library = model_id.split("/", 1)[0]
    gt_models.prepare_import(library)
    package = importlib.import_module(gt_models.package_of(library))
    # A namespace package (pytorch_tabnet ships no ``__init__.py``) has no ``__file__``, only its path; a
    # library that is one module (rtdl_revisiting_models) is its file, not the site-packages holding it.
    if not hasattr(package, "__path__"):
        folder = str(package.__file__)
    else:
        folder = os.path.dirname(package.__file__) if package.__file__ else list(package.__path__)[0]
    out: dict[str, Any] = {"model": model_id, "library": library, "folder": folder,
                           "version": _version(library, package), "torch": torch.__version__}
    try:
        model, args, kwargs = gt_models.build(model_id)
    except Exception as exc:
        out["build_error"] = f"{type(exc).__name__}: {str(exc).strip()[:300]}"
        return out
    out["parameters"] = sum(p.numel() for p in model.parameters())
    out["entries"] = entry_points(model)
    out["modes"] = {mode: observe(model, args, kwargs, mode, folder) for mode in ("eval", "train")}
    return out


def main() -> None:
    model_id, target = sys.argv[1], Path(sys.argv[2])
    result = run(model_id)
    target.write_text(json.dumps(result), encoding="utf-8")


if __name__ == "__main__":
    main()
