"""DYN204 ``wall-clock-call``: reading the clock, or calling the ``time`` module, inside compiled code.

Page: ``rules/DYN204-wall-clock-call.md``. The ``time`` functions are C functions Dynamo skips (GB0007): the clock
readings, and the converters and formatters whether or not a time is passed (``time.gmtime(0)``,
``time.strftime(fmt, t)``, ``time.mktime(t)``), and ``time.sleep`` (each measured on torch 2.13).
"""

from __future__ import annotations

from dynalint.lint.rule import CallRule

_TIME_READERS = ("time", "perf_counter", "monotonic", "process_time", "thread_time")
# Converters and formatters: they read the clock when no time is passed, and break either way.
_TIME_CONVERTERS = ("localtime", "gmtime", "ctime", "asctime", "strftime", "mktime", "sleep")


class WallClockCall(CallRule):
    code = "DYN204"
    name = "wall-clock-call"
    message = ("`{call}` in compiled code runs eagerly (Dynamo does not trace the clock or the `time` module) and "
               "breaks the graph")
    help = "Time the compiled call from outside it, or use `torch.profiler` around it"
    gb_ids = ("GB0007", "GB0156")
    calls = frozenset(
        {f"time.{name}" for name in _TIME_READERS}
        | {f"time.{name}_ns" for name in _TIME_READERS}
        | {f"time.{name}" for name in _TIME_CONVERTERS}
        # ``timeit``'s clock, ``time.perf_counter`` under another name (poutyne times its loops with it).
        | {"timeit.default_timer"}
        # ``datetime`` constructors that read the clock: unsupported methods of a builtin class (GB0156).
        | {"datetime.datetime.now", "datetime.datetime.utcnow", "datetime.datetime.today", "datetime.date.today"}
    )
