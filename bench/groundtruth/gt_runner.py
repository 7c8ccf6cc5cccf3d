"""Ground-truth bench, the scheduler: one worker process per model, under a time limit, results cached.

A model's result is cached as JSON under ``~/.cache/dynalint-bench/groundtruth/torch-<version>/``
(the library's version is in the file), so re-scoring after a change to dynalint costs no compile.
A hang becomes ``{"timeout": ...}``, a crash ``{"crash": ...}``, and both are cached too (``--fresh``
runs everything again). No torch is imported here.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from importlib import metadata
from pathlib import Path
from typing import Any, Callable

HERE = Path(__file__).resolve().parent
CACHE = Path.home() / ".cache" / "dynalint-bench" / "groundtruth"


def cache_folder() -> Path:
    return CACHE / f"torch-{metadata.version('torch')}"


def cache_file(model_id: str) -> Path:
    return cache_folder() / (model_id.replace("/", "__") + ".json")


def run_one(model_id: str, timeout: float) -> dict[str, Any]:
    """Run the worker on ``model_id``; always returns a result dict (and caches it)."""
    target = cache_file(model_id)
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".part")
    partial.unlink(missing_ok=True)
    command = [sys.executable, "-W", "ignore", str(HERE / "gt_worker.py"), model_id, str(partial)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, start_new_session=True)
        if done.returncode == 0 and partial.exists():
            result = json.loads(partial.read_text(encoding="utf-8"))
        else:
            result = {"model": model_id, "crash": f"exit {done.returncode}: {done.stderr.strip()[-600:]}"}
    except subprocess.TimeoutExpired:
        # start_new_session: the worker leads its own group, which subprocess.run killed whole.
        result = {"model": model_id, "timeout": timeout}
    partial.unlink(missing_ok=True)
    target.write_text(json.dumps(result), encoding="utf-8")
    return result


def run_all(model_ids: list[str], *, jobs: int, timeout: float, fresh: bool, only_cached: bool,
            progress: Callable[[str], None]) -> dict[str, dict[str, Any]]:
    """Every model's result, from the cache where present (unless ``fresh``), else by running it."""
    results: dict[str, dict[str, Any]] = {}
    todo = []
    for model_id in model_ids:
        cached = cache_file(model_id)
        if cached.exists() and not fresh:
            results[model_id] = json.loads(cached.read_text(encoding="utf-8"))
        elif not only_cached:
            todo.append(model_id)
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        for model_id, result in zip(todo, pool.map(lambda m: run_one(m, timeout), todo)):
            results[model_id] = result
            progress(f"{model_id}: {status(result)}")
    return {m: results[m] for m in model_ids if m in results}


def status(result: dict[str, Any]) -> str:
    """One word for how a model's run went: ok, error (in a mode), build error, crash, timeout."""
    if "timeout" in result:
        return "timeout"
    if "crash" in result:
        return "crash"
    if "build_error" in result:
        return "build error"
    modes = result.get("modes", {})
    if any(m.get("error") for m in modes.values()):
        return "error"
    return "ok"
