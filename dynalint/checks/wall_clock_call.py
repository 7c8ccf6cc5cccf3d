"""DYN204 ``wall-clock-call``: reading the clock inside compiled code. Page: ``rules/DYN204-wall-clock-call.md``."""

from __future__ import annotations

import libcst as cst

from dynalint.lint.rule import CallRule

_TIME_READERS = ("time", "perf_counter", "monotonic", "process_time", "thread_time")
# Formatting helpers read the clock only when no time is passed: how many arguments come before it.
_CURRENT_TIME_DEFAULT = {"time.localtime": 0, "time.gmtime": 0, "time.ctime": 0, "time.asctime": 0, "time.strftime": 1}


class WallClockCall(CallRule):
    code = "DYN204"
    name = "wall-clock-call"
    message = "`{call}` in compiled code reads the clock eagerly and breaks the graph"
    help = "Time the compiled call from outside it, or use `torch.profiler` around it"
    gb_ids = ("GB0007", "GB0156")
    calls = frozenset(
        {f"time.{name}" for name in _TIME_READERS}
        | {f"time.{name}_ns" for name in _TIME_READERS}
        | set(_CURRENT_TIME_DEFAULT)
        # ``datetime`` constructors that read the clock: unsupported methods of a builtin class (GB0156).
        | {"datetime.datetime.now", "datetime.datetime.utcnow", "datetime.datetime.today", "datetime.date.today"}
    )

    def applies(self, node: cst.Call, resolved: str) -> bool:
        before = _CURRENT_TIME_DEFAULT.get(resolved)
        return before is None or len(node.args) <= before
