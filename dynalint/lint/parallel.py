"""Both cores: run a stage's per-file work in forked worker processes, results in input order.

Used by the pipeline (``pipeline/stages.py``) for the summarize stage and the lint stage when a run has enough files to pay for
the workers. Workers are forked, so they start with everything the parent holds (the texts, the
linked program) without pickling it; only each file's result travels back. The order of results is
the order of the inputs, so a parallel run reports exactly what a serial one does.

A worker that dies (a crash in a native parser) takes nothing else with it: a broken pool fails every
batch not yet done, and each of their files is then run alone in a process of its own; a file that
kills that process too gets ``lost(index)``, its own diagnostic. Where ``fork`` does not exist, or with one job, the work runs in this process.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from dynalint.lint.failsafe import Cancelled, checkpoint

T = TypeVar("T")

# The work of the current ``run``: set before the workers are forked, so they inherit it.
_work: Callable[[int], Any] | None = None


def default_jobs() -> int:
    """The CPUs this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def run(work: Callable[[int], T], count: int, jobs: int, lost: Callable[[int], T], min_items: int = 16,
        done: Callable[[int], None] | None = None) -> list[T]:
    """``[work(0), ..., work(count - 1)]``, computed by up to ``jobs`` worker processes.

    ``done(n)``: told how many items are finished as they finish (the CLI's progress line).
    """
    tell = done or (lambda finished: None)
    if jobs <= 1 or count < min_items or "fork" not in multiprocessing.get_all_start_methods():
        results_in_order = []
        for index in range(count):
            checkpoint()  # Ctrl-C: stop between files
            results_in_order.append(work(index))
            tell(index + 1)
        return results_in_order
    global _work
    _work = work
    try:
        batches = _batches(count, jobs * 16)
        results: dict[int, T] = {}
        for index in _run_batches(batches, jobs, results, tell):
            results[index] = _run_alone(index, lost)
        return [results[index] for index in range(count)]
    finally:
        _work = None


def _batches(count: int, pieces: int) -> list[tuple[int, int]]:
    size = max(1, -(-count // pieces))
    return [(start, min(start + size, count)) for start in range(0, count, size)]


def _run_batches(batches: Sequence[tuple[int, int]], jobs: int, results: dict[int, Any],
                 tell: Callable[[int], None]) -> list[int]:
    """Fill ``results`` from the batches; the indices of batches whose worker died."""
    from concurrent.futures import ProcessPoolExecutor  # imported by runs big enough to use workers
    from concurrent.futures.process import BrokenProcessPool

    failed: list[int] = []
    with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("fork"), initializer=_ignore_interrupts) as pool:
        futures = [_submit(pool, start, stop) for start, stop in batches]
        try:
            for (start, stop), future in zip(batches, futures):
                try:
                    if future is None:
                        raise BrokenProcessPool("the pool broke before this batch was handed to it")
                    for offset, value in enumerate(_result(future)):
                        results[start + offset] = value
                except BrokenProcessPool:
                    failed.extend(range(start, stop))
                tell(stop)
        except Cancelled:
            # Ctrl-C: the workers are killed, not waited for (a batch can take seconds).
            for process in list(getattr(pool, "_processes", {}).values()):
                process.kill()
            pool.shutdown(wait=False, cancel_futures=True)
            raise
    return failed


def _submit(pool: Any, start: int, stop: int) -> Any:
    """The batch's future, or ``None`` where the pool broke already: a worker can die (``os._exit`` in a native
    parser) while later batches are still being handed over, and ``submit`` then raises at once."""
    from concurrent.futures.process import BrokenProcessPool

    try:
        return pool.submit(_run_batch, start, stop)
    except BrokenProcessPool:
        return None


def _result(future: Any) -> Any:
    """The future's value, waited for in short steps so that a cancelled run stops within a fraction of a second."""
    from concurrent.futures import TimeoutError as Pending

    while True:
        checkpoint()
        try:
            return future.result(timeout=0.1)
        except Pending:
            continue


def _run_alone(index: int, lost: Callable[[int], T]) -> T:
    """``work(index)`` in a forked process of its own; ``lost(index)`` if that process dies."""
    context = multiprocessing.get_context("fork")
    receiver, sender = context.Pipe(duplex=False)
    child = context.Process(target=_answer, args=(sender, index))
    child.start()
    sender.close()
    try:
        value = receiver.recv()
    except EOFError:
        value = lost(index)
    child.join()
    return value


def _answer(sender: Any, index: int) -> None:
    _ignore_interrupts()
    assert _work is not None
    sender.send(_work(index))
    sender.close()


def _run_batch(start: int, stop: int) -> list[Any]:
    assert _work is not None
    return [_work(index) for index in range(start, stop)]


def _ignore_interrupts() -> None:
    # Ctrl-C reaches the whole process group: the parent decides, and shuts the workers down.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
