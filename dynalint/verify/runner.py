"""Verify stage, the supervisor: feed jobs to worker processes and survive whatever user code does.

A worker (``worker.py``) is a separate Python process: one torch import serves many jobs. Each job
has a time limit; a job that hangs gets its worker killed (with its whole process group) and is
reported ``unverifiable`` (timed out); a worker that dies (segfault, ``os._exit``, ``sys.exit`` at
import) is reported for the job it held, and a fresh worker takes the remaining jobs. Factory jobs
come first; a function one of them already ran is ``covered`` by it and not run again. No torch here.
"""

from __future__ import annotations

import json
import os
import selectors
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from dynalint.verify.plan import Job, traced_within

PACKAGE_PARENT = str(Path(__file__).resolve().parents[2])
STARTUP_SECONDS = 180.0  # importing torch on a cold machine


class WorkerError(Exception):
    """The worker could not be started or stopped answering."""


class _Worker:
    def __init__(self, backend: str, device: str) -> None:
        self.stderr = tempfile.TemporaryFile()
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [PACKAGE_PARENT, os.environ.get("PYTHONPATH")]))}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "dynalint.verify.worker", "--backend", backend, "--device", device],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
            env=env,
            start_new_session=True,  # its own process group: a kill takes user subprocesses with it
        )
        self._buffer = b""
        self.closed = False  # its stdout reached end of file: it died, or is dying
        ready = self.read_line(STARTUP_SECONDS)
        if ready is None or not json.loads(ready).get("ready"):
            raise WorkerError(f"the verify worker did not start: {self.last_words()}")
        self.device = json.loads(ready).get("device", "cpu")

    def read_line(self, timeout: float) -> str | None:
        """One line from the worker, or ``None`` on timeout or end of output."""
        assert self.process.stdout is not None
        deadline = time.monotonic() + timeout
        selector = selectors.DefaultSelector()
        selector.register(self.process.stdout, selectors.EVENT_READ)
        try:
            while b"\n" not in self._buffer:
                remaining = deadline - time.monotonic()
                if remaining <= 0 or not selector.select(remaining):
                    return None
                chunk = os.read(self.process.stdout.fileno(), 1 << 16)
                if not chunk:
                    self.closed = True
                    return None
                self._buffer += chunk
        finally:
            selector.close()
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line.decode("utf-8", errors="replace")

    def send(self, job: Job) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write((json.dumps(job.as_dict()) + "\n").encode())
        self.process.stdin.flush()

    def kill(self) -> None:
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait()

    def close(self) -> None:
        if self.process.poll() is None:
            assert self.process.stdin is not None
            self.process.stdin.close()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()
        self.stderr.close()

    def last_words(self) -> str:
        self.stderr.seek(0)
        text = self.stderr.read().decode("utf-8", errors="replace").strip().splitlines()
        return text[-1] if text else "no output"

    def death(self) -> str:
        try:  # its stdout is closed, so it is exiting; the exit status may lag a moment behind
            code = self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.kill()
            return "the process running it closed its output and stopped answering (it was killed)"
        if code < 0:
            return f"the process running it was killed by {signal.Signals(-code).name}"
        return f"the process running it exited with code {code}"


def _covering_factory(job: Job, jobs: Sequence[Job], results: dict[str, dict[str, Any]]) -> str | None:
    """The id of a factory job, already run, that traced ``job``'s function (factories run first)."""
    if job.kind != "function":
        return None
    for other in jobs:
        if other.kind == "factory" and other.id in results and traced_within(results[other.id], [job]):
            return other.id
    return None


def run(jobs: Sequence[Job], backend: str = "eager", device: str = "auto", timeout: float = 120.0) -> dict[str, dict[str, Any]]:
    """Run every job; ``{job id: result}`` with a result for every job, whatever happened."""
    results: dict[str, dict[str, Any]] = {}
    worker: _Worker | None = None
    try:
        for job in jobs:
            factory = _covering_factory(job, jobs, results)
            if factory is not None:
                # The user's factory already ran this function with real inputs: its observations
                # speak for it, and synthesizing inputs (or a default-sized model) again adds nothing.
                results[job.id] = {"id": job.id, "error": None, "unverifiable": None, "covered_by": factory,
                                   "breaks": [], "traced": [], "graphs": 0, "recompiles": 0}
                continue
            if worker is None:
                worker = _Worker(backend, device)
            worker.send(job)
            line = worker.read_line(timeout)
            if line is not None:
                results[job.id] = json.loads(line)
                continue
            if not worker.closed and worker.process.poll() is None:
                worker.kill()
                reason = f"timed out after {timeout:g} s (the worker was killed; later jobs ran in a fresh one)"
            else:
                reason = f"{worker.death()} ({worker.last_words()})"
            results[job.id] = {"id": job.id, "error": None, "unverifiable": reason, "breaks": [], "traced": [],
                               "graphs": 0, "recompiles": 0, "crashed": True}
            worker.close()
            worker = None
    finally:
        if worker is not None:
            worker.close()
    return results
