"""Ground-truth bench, the scheduler: each model in a process of its own, under a time limit, results cached.

Each worker thread keeps a model server per library (``gt_zygote.py``), which imports torch and the
library once and forks a child per model; where a server cannot start or dies, the model runs in a
fresh ``gt_worker.py`` process instead, as every model once did.

A model's result is cached as JSON under ``~/.cache/dynalint-bench/groundtruth/torch-<version>/``
(the library's version is in the file), so re-scoring after a change to dynalint costs no compile. Each
result records ``seconds``, the wall time of its run (a library's first model includes its server's start).
A hang becomes ``{"timeout": ...}``, a crash ``{"crash": ...}``, and both are cached too (``--fresh``
runs everything again). No torch is imported here.

Part of the harness run by ``python bench/groundtruth/groundtruth.py`` (see ``README.md``).
"""

from __future__ import annotations

import json
import select
import subprocess
import sys
import threading
import time
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


MARK = "@@gt "  # ``gt_zygote.MARK``: the server's answer lines


class Servers:
    """The model servers of every worker thread: each thread holds one, for the library of its current
    model, and ends it when it moves on to another library (the catalogue lists each library's models
    together), so that no more than ``jobs`` servers hold torch in memory at once."""

    def __init__(self) -> None:
        self._local = threading.local()
        self._started: list[subprocess.Popen[str]] = []
        self._lock = threading.Lock()

    def get(self, library: str) -> subprocess.Popen[str] | None:
        held: tuple[str, subprocess.Popen[str] | None] | None = getattr(self._local, "held", None)
        if held is None or held[0] != library:
            if held is not None and held[1] is not None:
                _end(held[1])
            held = self._local.held = (library, self._start(library))
        return held[1]

    def drop(self, library: str) -> None:
        self._local.held = (library, None)

    def _start(self, library: str) -> subprocess.Popen[str] | None:
        server = subprocess.Popen([sys.executable, "-W", "ignore", str(HERE / "gt_zygote.py"), library],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                  text=True, start_new_session=True)
        with self._lock:
            self._started.append(server)
        return server if answer(server, 600.0) is not None else None

    def close(self) -> None:
        for server in self._started:
            _end(server)


def _end(server: subprocess.Popen[str]) -> None:
    """Let a server finish (its input closed), killing it after a minute."""
    if server.stdin is not None and not server.stdin.closed:
        server.stdin.close()
    try:
        server.wait(timeout=60)
    except subprocess.TimeoutExpired:
        server.kill()


def answer(server: subprocess.Popen[str], timeout: float) -> dict[str, Any] | None:
    """The server's next answer line, or None when it ends or stays silent past ``timeout`` seconds."""
    assert server.stdout is not None
    while select.select([server.stdout], [], [], timeout)[0]:
        line = server.stdout.readline()
        if not line:
            return None
        if line.startswith(MARK):
            return dict(json.loads(line[len(MARK):]))
    server.kill()
    return None


def run_one(model_id: str, timeout: float, servers: Servers | None = None) -> dict[str, Any]:
    """Run ``model_id`` in a process of its own (forked by its library's server when there is one);
    always returns a result dict (and caches it)."""
    target = cache_file(model_id)
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".part")
    partial.unlink(missing_ok=True)
    library = model_id.split("/", 1)[0]
    started = time.perf_counter()
    server = servers.get(library) if servers is not None else None
    outcome = _served(server, model_id, partial, timeout) if server is not None else None
    if outcome is None and servers is not None:
        servers.drop(library)  # it could not start, or died: a process per model from now on
    if outcome is None:
        outcome = _in_own_process(model_id, partial, timeout)
    if "timeout" in outcome:
        result = {"model": model_id, "timeout": timeout}
    elif outcome["exit"] == 0 and partial.exists():
        result = json.loads(partial.read_text(encoding="utf-8"))
    else:
        result = {"model": model_id, "crash": f"exit {outcome['exit']}: {outcome['stderr'][-600:]}"}
    partial.unlink(missing_ok=True)
    result["seconds"] = round(time.perf_counter() - started, 1)
    target.write_text(json.dumps(result), encoding="utf-8")
    return result


def _served(server: subprocess.Popen[str], model_id: str, partial: Path, timeout: float) -> dict[str, Any] | None:
    try:
        assert server.stdin is not None
        server.stdin.write(f"{model_id} {partial} {timeout}\n")
        server.stdin.flush()
    except (BrokenPipeError, OSError):
        return None
    return answer(server, timeout + 120.0)


def _in_own_process(model_id: str, partial: Path, timeout: float) -> dict[str, Any]:
    command = [sys.executable, "-W", "ignore", str(HERE / "gt_worker.py"), model_id, str(partial)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, start_new_session=True)
        return {"exit": done.returncode, "stderr": done.stderr.strip()}
    except subprocess.TimeoutExpired:
        # start_new_session: the worker leads its own group, which subprocess.run killed whole.
        return {"timeout": timeout}


def run_all(model_ids: list[str], *, jobs: int, timeout: float, fresh: bool, only_cached: bool,
            progress: Callable[[str], None], serve: bool = True) -> dict[str, dict[str, Any]]:
    """Every model's result, from the cache where present (unless ``fresh``), else by running it (forked
    from its library's server, or with ``serve`` false in a fresh process)."""
    results: dict[str, dict[str, Any]] = {}
    todo = []
    for model_id in model_ids:
        cached = cache_file(model_id)
        if cached.exists() and not fresh:
            results[model_id] = json.loads(cached.read_text(encoding="utf-8"))
        elif not only_cached:
            todo.append(model_id)
    servers = Servers() if serve else None
    try:
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            for model_id, result in zip(todo, pool.map(lambda m: run_one(m, timeout, servers), todo)):
                results[model_id] = result
                progress(f"{model_id}: {status(result)}")
    finally:
        if servers is not None:
            servers.close()
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
