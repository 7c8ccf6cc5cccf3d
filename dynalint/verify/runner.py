"""Verify stage, the supervisor: feed jobs to worker processes and survive whatever user code does.

A worker (``worker.py``) is a separate Python process: one torch import serves many jobs. Each job
has a time limit; a job that hangs gets its worker killed (with its whole process group) and is
reported ``unverifiable`` (timed out); a worker that dies (segfault, ``os._exit``, ``sys.exit`` at
import) is reported for the job it held, and a fresh worker takes the remaining jobs. Factory jobs
come first; a function one of them already ran is ``covered`` by it and not run again, and one whose
class a factory's model held is sent with the factories that built it (``built_by``), so that what it
cannot run is not blamed on a missing factory. ``Runner`` keeps its worker between batches of jobs:
``--verify`` runs the factories, lints what they reached, then runs the functions. No torch here.

Each worker leads a session of its own, and its whole process group is killed however ``run`` ends:
after the last job, on a timeout, on Ctrl-C (``KeyboardInterrupt``) and on SIGTERM (``Terminated``,
raised by a handler installed only while ``run`` runs), so nothing user code started in the worker
outlives dynalint. Results come back on a pipe of their own, never on the worker's stdout, which user
code writes to; a line on that pipe that is not the job's result costs that job, not the run.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

from dynalint.verify import containment
from dynalint.verify.plan import builders, traced_within
from dynalint.verify.protocol import Job, JobResult, Ready

PACKAGE_PARENT = str(Path(__file__).resolve().parents[2])
WORKER_MODULE = "dynalint.verify.worker"  # run with ``python -m``; tests put a fake one in its place
STARTUP_SECONDS = 180.0  # importing torch on a cold machine
POLL_SECONDS = 1.0  # how often a wait for a result checks that the worker still lives
INTERRUPTS = {signal.SIGINT, signal.SIGTERM}


class WorkerError(Exception):
    """The worker could not be started or stopped answering."""


class Terminated(BaseException):
    """SIGTERM arrived while ``run`` ran; like ``KeyboardInterrupt``, no ``except Exception`` stops it."""


def _raise_terminated(signum: int, frame: object) -> None:
    raise Terminated(f"terminated by {signal.Signals(signum).name}")


@contextlib.contextmanager
def _sigterm_raises() -> Iterator[None]:
    """SIGTERM unwinds like Ctrl-C while verify runs (through the ``finally`` that kills workers)."""
    if threading.current_thread() is not threading.main_thread():  # only the main thread may set handlers
        yield
        return
    previous = signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous if previous is not None else signal.SIG_DFL)


@contextlib.contextmanager
def _interrupts_held() -> Iterator[None]:
    """Hold SIGINT and SIGTERM back until the end of the block, where they are delivered.

    Around starting a worker, because an exception between the fork and the return of ``Popen``
    would lose the only handle on a running worker; around killing one, so that a second Ctrl-C
    cannot cut the kill short. The worker inherits the mask and lifts it first thing.
    """
    held = signal.pthread_sigmask(signal.SIG_BLOCK, INTERRUPTS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


def _result(line: str | None, job: Job) -> JobResult | None:
    """``job``'s result, when ``line`` holds it, or ``None``."""
    if line is None:
        return None
    try:
        result = JobResult.from_json(line)
    except (KeyError, TypeError, ValueError, IndexError):  # not JSON, or not a result
        return None
    return result if result.id == job.id else None


class _Worker:
    def __init__(self, backend: str, device: str) -> None:
        self.stderr = tempfile.TemporaryFile()  # a file, not a pipe: a worker printing 100 MB never blocks
        self.process: subprocess.Popen[bytes] | None = None
        self._siblings = containment.escaped_children()  # there before this worker: not its to kill
        self.results, writer = os.pipe()
        self._buffer = b""
        self.closed = False  # its result pipe reached end of file, or it exited: it died, or is dying
        self.out_of_memory: int | None = None  # bytes its processes held when the memory limit stopped it
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [PACKAGE_PARENT, os.environ.get("PYTHONPATH")]))}
        try:
            with _interrupts_held():
                try:
                    self.process = subprocess.Popen(
                        [sys.executable, "-m", WORKER_MODULE, "--backend", backend, "--device", device,
                         "--result-fd", str(writer), "--parent", str(os.getpid())],
                        stdin=subprocess.PIPE,
                        stdout=self.stderr,  # user code owns fd 1; the results go to `writer`
                        stderr=self.stderr,
                        pass_fds=(writer,),
                        env=env,
                        start_new_session=True,  # its own process group: a kill takes user subprocesses with it
                    )
                finally:
                    os.close(writer)  # the worker's copy is then the only one: its end of file is the worker's
            self.device = self._ready(self.read_line(STARTUP_SECONDS)).device
        except BaseException:
            self.close()
            raise

    def _ready(self, line: str | None) -> Ready:
        """The worker's first line, or ``WorkerError`` with its last words when that is not ``Ready``."""
        try:
            if line is not None:
                return Ready.from_json(line)
        except (TypeError, ValueError):
            pass
        raise WorkerError(f"the verify worker did not start: {self.last_words()}")

    def read_line(self, timeout: float, memory_limit: int | None = None) -> str | None:
        """One line from the worker's result pipe, or ``None`` on timeout, when the worker is gone, or when
        its processes together hold more than ``memory_limit`` bytes (``out_of_memory`` says how many)."""
        assert self.process is not None
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            readable, _, _ = select.select([self.results], [], [], min(remaining, POLL_SECONDS))
            if not readable:
                # A process user code forked holds the pipe open after the worker died: no end of
                # file will come, so the worker's own exit must be noticed.
                if self.process.poll() is not None:
                    self.closed = True
                    return None
                if memory_limit is not None:
                    used = containment.group_memory(self.process.pid)
                    if used is not None and used > memory_limit:
                        self.out_of_memory = used
                        return None
                continue
            chunk = os.read(self.results, 1 << 16)
            if not chunk:
                self.closed = True
                return None
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line.decode("utf-8", errors="replace")

    def send(self, job: Job) -> None:
        assert self.process is not None and self.process.stdin is not None
        try:
            self.process.stdin.write((job.to_json() + "\n").encode())
            self.process.stdin.flush()
        except BrokenPipeError:  # it died between jobs: waiting for the answer finds out how
            pass

    def kill(self) -> None:
        """SIGKILL the worker's whole process group: the worker, and whatever user code started in it."""
        assert self.process is not None
        with _interrupts_held():
            try:
                os.killpg(self.process.pid, signal.SIGKILL)
            except ProcessLookupError:  # the worker was reaped and nothing it started is left
                pass
            self.process.wait()
            # What user code started in a session of its own (``start_new_session``, a double fork) left
            # the group; as this process is their subreaper they became its children: they go too.
            containment.kill_orphans(keep=self._siblings)

    def close(self) -> None:
        """Kill the group even after a clean last job: its children (a server, a sleeping fork) go too."""
        with _interrupts_held():
            if self.process is not None:
                self.kill()
                if self.process.stdin is not None:
                    with contextlib.suppress(OSError):  # unsent bytes to a dead worker
                        self.process.stdin.close()
            if self.results >= 0:
                os.close(self.results)
                self.results = -1
            self.stderr.close()

    def last_words(self) -> str:
        """The last line of the worker's stderr (``pread``: the file offset is shared with the worker)."""
        fd = self.stderr.fileno()
        start = max(0, os.fstat(fd).st_size - 4096)  # a 100 MB print is never read whole
        lines = os.pread(fd, 4096, start).decode("utf-8", errors="replace").strip().splitlines()
        return lines[-1][-300:] if lines else "no output"

    def death(self) -> str:
        assert self.process is not None
        try:  # its result pipe is closed, so it is exiting; the exit status may lag a moment behind
            code = self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.kill()
            return "the process running it closed its output and stopped answering (it was killed)"
        if code < 0:
            return f"the process running it was killed by {signal.Signals(-code).name}"
        return f"the process running it exited with code {code}"


def _covering_factory(job: Job, jobs: Sequence[Job], results: dict[str, JobResult]) -> str | None:
    """The id of a factory job, already run, that traced ``job``'s function (factories run first)."""
    if job.kind != "function":
        return None
    for other in jobs:
        if other.kind == "factory" and other.id in results and traced_within(results[other.id], [job]):
            return other.id
    return None


class Runner:
    """A run's worker processes, for one or more batches of jobs (the worker lives across them).

    Used as a context manager: SIGTERM raises ``Terminated`` inside it, and on the way out every
    worker is killed with its process group, whatever ended the block.
    """

    def __init__(self, backend: str = "eager", device: str = "auto", timeout: float = 120.0,
                 memory_gb: float | None = None) -> None:
        self.backend, self.device, self.timeout = backend, device, timeout
        self.memory_limit = containment.memory_limit(memory_gb)
        self.worker: _Worker | None = None
        self._signals = contextlib.ExitStack()

    def __enter__(self) -> Runner:
        self._signals.enter_context(_sigterm_raises())
        containment.become_subreaper()
        return self

    def __exit__(self, *exc_info: object) -> None:
        try:
            if self.worker is not None:
                self.worker.close()
                self.worker = None
        finally:
            self._signals.close()

    def run(self, jobs: Sequence[Job], results: dict[str, JobResult] | None = None) -> dict[str, JobResult]:
        """Run every job of ``jobs`` that ``results`` has no answer for; ``results`` completed.

        Raises ``KeyboardInterrupt`` on Ctrl-C and ``Terminated`` on SIGTERM (the workers are killed
        when the ``with`` block ends).
        """
        results = {} if results is None else results
        for job in jobs:
            if job.id in results:
                continue
            factory = _covering_factory(job, jobs, results)
            if factory is not None:
                # The user's factory already ran this function with real inputs: its observations
                # speak for it, and synthesizing inputs (or a default-sized model) again adds nothing.
                results[job.id] = JobResult.empty(job.id, covered_by=factory)
                continue
            results[job.id] = self._one(dataclasses.replace(job, built_by=builders(job, jobs, results)))
        return results

    def _one(self, job: Job) -> JobResult:
        if self.worker is None:
            self.worker = _Worker(self.backend, self.device)
        worker = self.worker
        worker.send(job)
        line = worker.read_line(self.timeout, self.memory_limit)
        answer = _result(line, job)
        if answer is not None:
            return answer
        assert worker.process is not None
        if worker.out_of_memory is not None:
            reason = (f"out of memory: its processes held {worker.out_of_memory / 2**30:.1f} GB, over the "
                      f"{(self.memory_limit or 0) / 2**30:.1f} GB limit (`verify.memory-gb`; the worker was killed, later "
                      "jobs ran in a fresh one)")
        elif line is not None:  # something else wrote to the result pipe: the worker cannot be trusted
            reason = (f"its worker answered {line[:80]!r} instead of a result (the worker was killed; "
                      "later jobs ran in a fresh one)")
        elif not worker.closed and worker.process.poll() is None:
            reason = f"timed out after {self.timeout:g} s (the worker was killed; later jobs ran in a fresh one)"
        else:
            reason = f"{worker.death()} ({worker.last_words()})"
        worker.close()  # kills its process group, whichever way the job ended
        self.worker = None
        return JobResult.empty(job.id, unverifiable=reason, crashed=True)


def run(jobs: Sequence[Job], backend: str = "eager", device: str = "auto", timeout: float = 120.0,
        memory_gb: float | None = None) -> dict[str, JobResult]:
    """Run every job; ``{job id: result}`` with a result for every job, whatever happened.

    Raises ``KeyboardInterrupt`` on Ctrl-C and ``Terminated`` on SIGTERM, with every worker killed.
    """
    with Runner(backend, device, timeout, memory_gb) as runner:
        return runner.run(jobs)
