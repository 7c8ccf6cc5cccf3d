"""Verify stage, containment: what keeps user code's processes and memory inside ``--verify``'s bounds.

The supervisor (``runner.py``) kills a worker with its whole process group. Three escapes remain, and
each is closed here, on Linux (elsewhere these do nothing and the process group is the bound):

- user code starting a session of its own (``start_new_session=True``, a double fork) leaves the group:
  the supervisor is made a *child subreaper* (``PR_SET_CHILD_SUBREAPER``), so such orphans become its
  children instead of init's, and ``kill_orphans`` kills them with the worker (the children in a session
  other than the supervisor's: its own children, a worker pool, share its session);
- a supervisor killed by SIGKILL runs no cleanup: the worker watches its parent and kills its own
  process group when the parent is gone (``die_with_parent``), and exits at once if that already happened;
- memory: ``group_memory`` adds up the resident memory of the worker's process group, which the
  supervisor compares with ``verify.memory-gb`` (default: three quarters of the machine's memory)
  while it waits, so a runaway job is a verdict ("out of memory at N GB"), not a dead machine.

No torch here.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time
from collections.abc import Collection

PR_SET_CHILD_SUBREAPER = 36
DEFAULT_MEMORY_SHARE = 0.75
WATCH_SECONDS = 0.2


def _prctl(option: int, value: int) -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(option, value, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def become_subreaper() -> bool:
    """Make this process the reaper of its orphaned descendants (Linux 3.4+)."""
    return _prctl(PR_SET_CHILD_SUBREAPER, 1)


def die_with_parent(parent: int) -> None:
    """In a worker: when the supervisor ``parent`` dies (SIGKILL included, which runs no cleanup), kill this
    worker's whole process group, what user code started in it too. A watchdog thread notices the new
    parent within ``WATCH_SECONDS``. (``PR_SET_PDEATHSIG`` would kill the worker alone, at once, and leave
    its children to init: the group is what must go. A job holding the interpreter in C code for longer
    delays the watchdog until it lets go.)"""
    if os.getppid() != parent:
        os._exit(1)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(WATCH_SECONDS)
        os.killpg(os.getpgrp(), signal.SIGKILL)

    threading.Thread(target=watch, name="dynalint-parent-watch", daemon=True).start()


def escaped_children() -> set[int]:
    """This process's children in a session other than its own: orphans of user code that started a session
    of their own, adopted by this subreaper (its own children, a worker pool, share its session)."""
    me, session = os.getpid(), os.getsid(0)
    found = set()
    for pid in _pids():
        stat = _stat(pid)
        if stat is not None and stat[0] == me and stat[2] != session:
            found.add(pid)
    return found


def kill_orphans(keep: Collection[int] = ()) -> None:
    """SIGKILL and reap the escaped children (``escaped_children``) but ``keep``."""
    for pid in escaped_children() - set(keep):
        try:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass


def group_memory(group: int) -> int | None:
    """Resident bytes of every process in process group ``group`` (``None`` without ``/proc``)."""
    if not os.path.isdir("/proc"):
        return None
    page = os.sysconf("SC_PAGE_SIZE")
    total = 0
    for pid in _pids():
        stat = _stat(pid)
        if stat is None or stat[1] != group:
            continue
        try:
            with open(f"/proc/{pid}/statm", encoding="ascii") as statm:
                total += int(statm.read().split()[1]) * page
        except (OSError, ValueError, IndexError):
            continue
    return total


def memory_limit(gigabytes: float | None) -> int | None:
    """The limit in bytes: ``gigabytes``, else three quarters of the machine's memory (``None``: unknown)."""
    if gigabytes is not None:
        return int(gigabytes * 2**30)
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") * DEFAULT_MEMORY_SHARE)
    except (ValueError, OSError, AttributeError):
        return None


def _pids() -> list[int]:
    try:
        return [int(name) for name in os.listdir("/proc") if name.isdigit()]
    except OSError:
        return []


def _stat(pid: int) -> tuple[int, int, int] | None:
    """``(parent pid, process group, session)`` of ``pid`` from ``/proc/PID/stat``."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8", errors="replace") as stat:
            fields = stat.read().rpartition(")")[2].split()
        return int(fields[1]), int(fields[2]), int(fields[3])
    except (OSError, ValueError, IndexError):
        return None
