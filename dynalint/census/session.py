"""Verify stage, in the user's own test process: watch every ``torch.compile`` a pytest session triggers.

The pytest plugin (``dynalint/pytest_plugin.py``) starts a ``Recorder`` before collection and stops it
at the end of the session. It uses ``--verify``'s observer (``observe.watch_breaks``: the
``graph_breaks`` log, the same parsing and GB ids), only without resetting Dynamo or swapping the
backend: the tests compile exactly what they would compile without it, once. Each break is tagged
with the test running at the time and the compile it happened in; each frame Dynamo compiled
(graphs, recompiles with their reason, compile seconds) comes from Dynamo's own compilation metrics,
drained after every test. ``testrun.py`` turns both into the census. torch is imported lazily.
"""

from __future__ import annotations

import contextlib
from typing import Any

from dynalint.census.testrun import FrameCompile, SeenBreak
from dynalint.verify.observe import watch_breaks
from dynalint.verify.protocol import ObservedBreak

# Dynamo keeps the metrics of its last 64 compiles only; one test may compile more than that.
METRICS_KEPT = 1_000_000


class _Sink:
    """What ``watch_breaks`` appends to: each break with the current test and compile."""

    def __init__(self, recorder: Recorder) -> None:
        self.recorder = recorder

    def append(self, brk: ObservedBreak) -> None:
        import torch._guards

        compile_id = torch._guards.CompileContext.current_compile_id()
        self.recorder.breaks.append(SeenBreak(brk, self.recorder.test, str(compile_id) if compile_id else None))


class Recorder:
    def __init__(self, owns: Any) -> None:
        self.owns = owns  # ``blame.Project.owns``: the files a break may be placed in
        self.test: str | None = None  # nodeid of the running test; None during collection
        self.breaks: list[SeenBreak] = []
        self.compiles: list[FrameCompile] = []
        self._stack = contextlib.ExitStack()
        self._seen = 0
        self._saved_limit: int | None = None

    def start(self) -> None:
        import torch._dynamo.utils as dynamo_utils

        kept = getattr(dynamo_utils, "_compilation_metrics", None)
        if hasattr(dynamo_utils, "set_compilation_metrics_limit") and kept is not None:
            self._saved_limit = kept.maxlen
            dynamo_utils.set_compilation_metrics_limit(METRICS_KEPT)
        self._seen = len(dynamo_utils.get_compilation_metrics())
        self._stack.enter_context(watch_breaks(_Sink(self), mine=self.owns))

    def enter(self, nodeid: str | None) -> None:
        """A test starts (``nodeid``) or ends (``None``): what was compiled so far belongs to the last one."""
        self.drain()
        self.test = nodeid

    def drain(self) -> None:
        import torch._dynamo.utils as dynamo_utils

        metrics = dynamo_utils.get_compilation_metrics()
        if len(metrics) < self._seen:  # user code cleared them (torch._dynamo.utils.clear_compilation_metrics)
            self._seen = 0
        for m in metrics[self._seen:]:
            field = lambda name: getattr(m, name, None)  # noqa: E731  (the fields vary across torch releases)
            filename = field("co_filename")
            if filename is None or field("is_forward") is False or field("is_runtime"):
                continue  # an AOT backward or runtime record, not a frame Dynamo compiled
            compile_id = field("compile_id")
            self.compiles.append(FrameCompile(
                compile_id=str(compile_id) if compile_id else None, filename=filename,
                line=field("co_firstlineno") or 0, name=field("co_name") or "",
                recompile_reason=field("recompile_reason"), graph=bool(field("graph_op_count")),
                seconds=field("entire_frame_compile_time_s") or 0.0, test=self.test,
            ))
        self._seen = len(metrics)

    def stop(self) -> None:
        import torch._dynamo.utils as dynamo_utils

        self.drain()
        self._stack.close()
        if self._saved_limit is not None:
            dynamo_utils.set_compilation_metrics_limit(self._saved_limit)
