"""Summaries in memory: a large tree holds tens of thousands of ``FunctionSummary`` objects, loaded from the
cache by unpickling (``_PickledAsTuple.__setstate__`` fills each ``__dict__``). CPython shares a class's
instance keys only up to 29 attributes set that way; one more field costs every summary about 1.2 KiB (on
diffusers' cold and edited runs, +17 MiB peak, measured with ``bench/speed.py``). No torch."""

from __future__ import annotations

import pickle
import tracemalloc

from dynalint.analysis.summary import FunctionSummary


def test_an_unpickled_function_summary_stays_small() -> None:
    summaries = [FunctionSummary(f"f{index}", index, None, []) for index in range(2000)]
    data = pickle.dumps(summaries)
    tracemalloc.start()
    try:
        loaded = pickle.loads(data)
        used, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(loaded) == 2000
    # About 1.1 KiB each with shared keys (its own empty lists and dicts included); over 2 KiB once sharing is lost.
    assert used / len(loaded) < 1400, f"{used / len(loaded):.0f} bytes per summary: more than 29 fields?"
