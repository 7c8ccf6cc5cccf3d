"""Failsafe: what keeps one bad file from costing more than its own diagnostic.

It wraps the pipeline twice. ``run_deep`` runs a whole lint run on a thread with a large stack and
a raised recursion limit, so that every stage, whose walks recurse with the tree, handles any nesting
that Python itself compiles (a few thousand levels) and more. ``contain`` wraps each stage's work on
one file (read, parse, summarize, link, lint): whatever it raises becomes that file's diagnostic,
naming the stage and the exception, and the run goes on with the other files. A limit reached
(recursion, memory, the per-file time budget) is DYN904; anything else is a bug, DYN903, with the
dynalint version and a request to report it.
"""

from __future__ import annotations

import os
import sys
import threading
import time
import traceback
from collections.abc import Callable
from typing import TypeVar

from dynalint.model import diagnostics
from dynalint.model.finding import Finding

T = TypeVar("T")

# The stack is reserved, not committed: pages are only touched by files that nest that deep.
STACK_BYTES = 1 << 30
RECURSION_LIMIT = 200_000
_DEEP_THREAD_NAME = "dynalint-deep-stack"
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # dynalint/: every wing
_limit_lock = threading.Lock()
_limit_users = 0
_saved_limit = 0


class Cancelled(BaseException):
    """The caller of ``run_deep`` was interrupted: the lint stops at its next checkpoint.

    A ``BaseException``, so that no per-file guard mistakes it for a file's problem.
    """


_run = threading.local()  # the cancel event of the run on this thread, if any


def checkpoint() -> None:
    """Where a lint may stop: between files and between functions."""
    cancel = getattr(_run, "cancel", None)
    if cancel is not None and cancel.is_set():
        raise Cancelled


class FileTooSlow(Exception):
    """A file's time budget ran out (raised between units of work, never mid-way through one)."""


class Deadline:
    """A per-file time budget, checked by the stages at points where stopping is safe."""

    def __init__(self, seconds: float | None) -> None:
        self.seconds = seconds
        self._end = None if seconds is None else time.monotonic() + seconds

    def check(self) -> None:
        checkpoint()
        if self._end is not None and time.monotonic() > self._end:
            raise FileTooSlow(f"it took longer than the {self.seconds:g} s per-file limit (`max-file-seconds`)")


NO_DEADLINE = Deadline(None)


def run_deep(function: Callable[[], T]) -> T:
    """``function()`` on a thread with a large stack and a high recursion limit; its result or exception."""
    if threading.current_thread().name == _DEEP_THREAD_NAME:
        return function()
    outcome: list[T] = []
    failure: list[BaseException] = []
    cancel, done = threading.Event(), threading.Event()

    def target() -> None:
        _run.cancel = cancel
        try:
            outcome.append(function())
        except BaseException as error:  # handed to the caller's thread as it is
            failure.append(error)
        finally:
            done.set()

    _raise_limit()
    try:
        previous = threading.stack_size(STACK_BYTES)
        try:
            thread = threading.Thread(target=target, name=_DEEP_THREAD_NAME, daemon=True)
            thread.start()
        finally:
            threading.stack_size(previous)
        # Waited on with an event, not ``Thread.join``: on Python 3.11 a join interrupted by a signal
        # handler's exception marks a running thread as stopped, and every later join returns at once.
        try:
            while not done.wait(0.2):  # short waits, so that Ctrl-C reaches the main thread at once
                pass
        except BaseException:
            # Interrupted: stop the lint at its next checkpoint before going on. Left running, it
            # could be inside LibCST's native parser when the interpreter exits, which aborts it.
            cancel.set()
            done.wait()
            raise
    finally:
        _restore_limit()
    if failure:
        raise failure[0]
    return outcome[0]


def _raise_limit() -> None:
    global _limit_users, _saved_limit
    with _limit_lock:
        if _limit_users == 0:
            _saved_limit = sys.getrecursionlimit()
            sys.setrecursionlimit(max(_saved_limit, RECURSION_LIMIT))
        _limit_users += 1


def _restore_limit() -> None:
    # The main thread keeps its ordinary stack: a high limit there would turn a runaway recursion into
    # a crash of the interpreter instead of a RecursionError.
    global _limit_users
    with _limit_lock:
        _limit_users -= 1
        if _limit_users == 0:
            sys.setrecursionlimit(_saved_limit)


def contain(stage: str, filename: str, work: Callable[[], T]) -> T | Finding:
    """``work()``, or the diagnostic saying what it raised on ``filename`` in ``stage``."""
    try:
        return work()
    except RecursionError:
        return diagnostics.too_complex(filename, 1, f"too deeply nested for the {stage} stage")
    except MemoryError as error:  # CPython's parser also says this when its own stack runs out
        detail = f" ({error})" if str(error) else ""
        return diagnostics.too_complex(filename, 1, f"ran out of memory in the {stage} stage{detail}")
    except FileTooSlow as error:
        return diagnostics.too_complex(filename, 1, str(error))
    except Exception as error:  # noqa: BLE001 - the point of the guard: nothing escapes one file
        return diagnostics.stage_crash(filename, stage, describe(error))


def describe(error: BaseException) -> str:
    """``ValueError: message (at module.py:42)``: the exception and the innermost dynalint line it passed."""
    frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename.startswith(_PACKAGE_DIR)]
    where = f" (at {frames[-1].filename.rsplit('/', 1)[-1]}:{frames[-1].lineno})" if frames else ""
    return f"{type(error).__name__}: {error}{where}"
