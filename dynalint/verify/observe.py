"""Verify stage, inside the worker: observe what Dynamo does while user code runs.

Breaks are read from the ``graph_breaks`` logging artifact (the only signal that sees every break on
torch 2.13), each one reduced to an ``ObservedBreak``: a GB id, a one-line reason and the innermost
frame of the observed file. Traced lines come from the ``trace_source`` artifact, and graphs are
counted by the one counting backend (``CountingBackend``). ``record_breaks`` watches one worker job
on a fresh Dynamo; ``watch_breaks`` watches without resetting anything, for the pytest plugin's
in-process census (``session.py``), placing each break in the project's files it is told about.
Torch is imported lazily, inside functions only.
"""

from __future__ import annotations

import contextlib
import functools
import json
import logging
import os
import re
from collections.abc import Callable, Sequence
from typing import Any, Iterator, Protocol

from dynalint.verify.protocol import ObservedBreak

_GB_LINK_RE = re.compile(r"/gb/gb(\d{4})\.html")
_HEADER_RE = re.compile(r"in user code at (?P<file>.+?):(?P<line>\d+)\s*$", re.M)
_FRAME_RE = re.compile(r'^\s*File "(?P<file>[^"]+)", line (?P<line>\d+), in (?P<func>\S+)', re.M)
_RESUME_RE = re.compile(r"^torch_dynamo_resume_in_(?P<func>.+)_at_\d+$")
_WRAPPERS = ("Encountered graph break when attempting", "Failed to handle graph break gracefully")
_SUPPRESSED = "user stack suppressed due to duplicate graph break"
# A frame Dynamo gave up on: logged first with Dynamo's own stack, before (for a backend's exception,
# GB0219) the graph-break record of the same frame, whose header names the same ``def`` line.
_WONT_CONVERT_RE = re.compile(r"^WON'T CONVERT \S+ (?P<file>.+?) line (?P<line>\d+)", re.M)
_ORIGINAL = "Original traceback:"  # a backend's exception quotes where the failing operation was written
_FELL_BACK = "falling back to eager"
_USER_TRACEBACK = "User code traceback:"


@functools.lru_cache(maxsize=1)
def _registry() -> tuple[dict[str, str], tuple[tuple[re.Pattern[str], str], ...]]:
    """Gb_type -> GB id (exact), and regexes for Gb_types with ``{placeholders}``."""
    import torch._dynamo

    path = os.path.join(os.path.dirname(torch._dynamo.__file__), "graph_break_registry.json")
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError):
        return {}, ()
    exact: dict[str, str] = {}
    patterns: list[tuple[re.Pattern[str], str]] = []
    for gid, entries in data.items():
        for entry in entries:
            gb_type = entry.get("Gb_type", "")
            if "{" in gb_type:
                rx = re.sub(r"\\\{[^}]*\\\}", ".*", re.escape(gb_type))
                patterns.append((re.compile(rx + "$"), gid))
            elif gb_type:
                exact.setdefault(gb_type, gid)
    return exact, tuple(patterns)


class BreakSink(Protocol):
    """Where breaks go as they are logged: a ``list``, or the census's recorder (``census/session.py``)."""

    def append(self, brk: ObservedBreak, /) -> None: ...


def _reason_lines(text: str) -> list[str]:
    """Lines of the break reason, wrapper lines ("Encountered graph break ...") dropped."""
    _, sep, rest = text.partition("Graph Break Reason:")
    body = rest if sep else text
    body = body.split("\nUser code traceback:", 1)[0]
    lines = [ln.strip() for ln in body.splitlines() if ln.strip()]
    return [ln for ln in lines if not ln.startswith(_WRAPPERS)]


def explanation_and_hints(text: str) -> tuple[str, tuple[str, ...]]:
    """Dynamo's own ``Explanation:`` and ``Hint:`` lines of a break record (hints as Dynamo ordered them)."""
    explanation, hints = "", []
    for line in _reason_lines(text):
        if line.startswith("Explanation:") and not explanation:
            explanation = line.removeprefix("Explanation:").strip()
        elif line.startswith("Hint:"):
            hints.append(line.removeprefix("Hint:").strip())
    return explanation, tuple(dict.fromkeys(hints))


def gb_id_of(text: str) -> str | None:
    """GB id from the ``gb/gbNNNN.html`` link, else from the installed registry."""
    m = _GB_LINK_RE.search(text)
    if m:
        return f"GB{m.group(1)}"
    exact, patterns = _registry()
    lines = _reason_lines(text)
    for ln in lines:
        if ln in exact:
            return exact[ln]
    for ln in lines:
        for rx, gid in patterns:
            if rx.match(ln):
                return gid
    return None


def _record_text(record: logging.LogRecord) -> str:
    text = record.getMessage()
    exc = record.exc_info[1] if record.exc_info else None
    if exc is not None:  # "frame falls back to eager" records carry the reason here
        prefix = "\n" if "Graph Break Reason:" in text else "\nGraph Break Reason: "
        text += prefix + str(exc)
    return text


def _inside(path: str, observed: str) -> bool:
    """``observed`` is a file the code was compiled under, or a folder holding the user's files."""
    return path == observed or path.startswith(observed.rstrip(os.sep) + os.sep)


def parse_record(text: str, filename: str, mine: Callable[[str], bool] | None = None) -> ObservedBreak:
    """Turn one ``graph_breaks`` log message into an ObservedBreak.

    The break's line is the innermost frame under ``filename``, or, when ``mine`` is given, the
    innermost frame of a file ``mine`` accepts (the project's and the named installed files). With no
    such frame, the innermost one outside torch's own source: a break is placed in torch only when
    its whole traceback is torch's.
    """
    frames = list(_FRAME_RE.finditer(text))
    if _FELL_BACK in text and _ORIGINAL in text:
        # The whole frame runs eagerly (a backend failed on it): the user traceback is its caller's,
        # and the operation that failed is under "Original traceback:".
        start = text.index(_ORIGINAL)
        end = text.find(_USER_TRACEBACK, start)
        frames = [m for m in frames if start < m.start() and (end < 0 or m.start() < end)] or frames
    own = mine or (lambda path: _inside(path, filename))
    mine_frames = [m for m in frames if own(m.group("file"))] or [m for m in frames if not in_torch(m.group("file"))]
    func = ""
    inner: tuple[str, int, str] | None = None
    header = _HEADER_RE.search(text)
    if mine_frames:
        last = mine_frames[-1]
        file, line, func = last.group("file"), int(last.group("line")), last.group("func")
        deeper = [m for m in frames[frames.index(last) + 1:] if not in_torch(m.group("file"))]
        if deeper:  # the break is in a file not linted (a library utility): say where, place it here
            inner = (deeper[-1].group("file"), int(deeper[-1].group("line")), deeper[-1].group("func"))
    elif header:
        file, line = header.group("file"), int(header.group("line"))
    elif frames:
        file, line, func = frames[-1].group("file"), int(frames[-1].group("line")), frames[-1].group("func")
    else:
        file, line = "", 0
    resume = _RESUME_RE.match(func)
    if resume:
        func = resume.group("func")
    lines = _reason_lines(text)
    skipped = "falling back to eager" in text
    explanation, hints = explanation_and_hints(text)
    return ObservedBreak(gb_id_of(text), lines[0] if lines else "", file, line, func, skipped, inner,
                         explanation, hints)


@functools.lru_cache(maxsize=1)
def _torch_folder() -> str:
    import torch

    return os.path.dirname(os.path.realpath(torch.__file__))


def in_torch(path: str) -> bool:
    """Whether ``path`` is a file of torch's own source."""
    return _inside(os.path.realpath(path), _torch_folder())


def user_files(observed: str, libraries: Sequence[str] = ()) -> Callable[[str], bool]:
    """The files a worker job blames and traces: under ``observed`` or one of ``libraries``, never torch's."""
    folders = (observed, *libraries)

    def mine(path: str) -> bool:
        return any(_inside(path, folder) for folder in folders) and not in_torch(path)

    return functools.lru_cache(maxsize=None)(mine)


class _BreakHandler(logging.Handler):
    def __init__(self, filename: str, sink: BreakSink, mine: Callable[[str], bool] | None = None) -> None:
        super().__init__(level=logging.DEBUG)
        self.filename = filename
        self.sink = sink
        self.mine = mine
        self.seen: set[tuple[str | None, str]] = set()  # (GB id, "file:line" of the header)
        # A frame's WON'T CONVERT notice, held back by the (file, line) of its ``def`` until the same frame's
        # graph-break record replaces it, or until the block ends (``release_notices``)
        self.notices: dict[tuple[str, str], ObservedBreak] = {}

    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = _record_text(record)
            brk = parse_record(text, self.filename, self.mine)
            header = _HEADER_RE.search(text)
            key = (brk.gb_id, header.group(0) if header else "")
            if _SUPPRESSED in text and key in self.seen:
                # Dynamo re-logs a break it already reported, without the user
                # stack (e.g. the frame of a helper that failed to inline is
                # traced again on its own): keep the first, full record only.
                return
            self.seen.add(key)
            skipped = _WONT_CONVERT_RE.search(text)
            if skipped is not None:
                self.notices[(skipped.group("file"), skipped.group("line"))] = brk
                return
            if header is not None and brk.gb_id:  # the same frame's record says why: the notice goes
                self.notices.pop((header.group("file"), header.group("line")), None)
            self.sink.append(brk)
        except Exception:  # never let parsing break the user's program
            self.handleError(record)

    def release_notices(self) -> None:
        """Record the WON'T CONVERT notices no graph-break record explained (a frame Dynamo gave up on)."""
        for brk in self.notices.values():
            self.sink.append(brk)
        self.notices.clear()


def reset_dynamo() -> None:
    """Forget compiled code, counters and the duplicate-break checker."""
    import torch._dynamo
    import torch._dynamo.utils

    torch._dynamo.reset()
    torch._dynamo.utils.counters.clear()
    torch._dynamo.utils.reset_graph_break_dup_checker()


@contextlib.contextmanager
def record_breaks(filename: str, mine: Callable[[str], bool] | None = None) -> Iterator[list[ObservedBreak]]:
    """Yield a list that fills with every graph break logged inside the block.

    ``filename`` is the name the observed code was compiled under (a file or a folder); a break's
    line is the innermost frame of its user traceback in it, or in a file ``mine`` accepts.
    """
    reset_dynamo()
    sink: list[ObservedBreak] = []
    with watch_breaks(sink, filename, mine):
        yield sink


@contextlib.contextmanager
def watch_breaks(sink: BreakSink, filename: str = "", mine: Callable[[str], bool] | None = None) -> Iterator[None]:
    """Append every graph break logged inside the block to ``sink``, without resetting Dynamo.

    ``record_breaks`` is this on a fresh Dynamo; the pytest plugin watches a whole test session this
    way, where forgetting compiled code would change what the user's tests do.
    """
    import torch._dynamo  # noqa: F401  (registers the artifact loggers)
    import torch._dynamo.convert_frame  # noqa: F401
    import torch._dynamo.exc  # noqa: F401
    import torch._dynamo.symbolic_convert  # noqa: F401
    import torch._dynamo.utils

    # Dynamo logs a break without its user stack when the innermost frame repeats (every skipped C
    # function ends in the same polyfill line), which would hide a second, distinct break site.
    checker = torch._dynamo.utils.graph_break_dup_warning_checker
    saved_add = checker.add
    checker.add = lambda key: True  # type: ignore[method-assign]  # every break logged in full; put back below
    handler = _BreakHandler(filename, sink, mine)
    try:
        with _artifact("graph_breaks", handler):
            yield
    finally:
        handler.release_notices()
        checker.add = saved_add  # type: ignore[method-assign]  # the method patched above, put back


@contextlib.contextmanager
def _artifact(name: str, handler: logging.Handler) -> Iterator[None]:
    """Route Dynamo's ``name`` logging artifact to ``handler`` only (not torch's stderr handler)."""
    from torch._logging._internal import log_registry

    saved: list[tuple[logging.Logger, int, bool]] = []
    for qname in log_registry.get_artifact_log_qnames():
        if qname.endswith(f"__{name}"):
            logger = logging.getLogger(qname)
            saved.append((logger, logger.level, logger.propagate))
            logger.setLevel(logging.DEBUG)
            logger.propagate = False
            logger.addHandler(handler)
    try:
        yield
    finally:
        for logger, level, propagate in saved:
            logger.removeHandler(handler)
            logger.setLevel(level)
            logger.propagate = propagate


_TRACE_RE = re.compile(r"TRACE starts_line (?P<file>.+?):(?P<line>\d+) in ")


class _TraceHandler(logging.Handler):
    def __init__(self, mine: Callable[[str], bool], sink: set[tuple[str, int]]) -> None:
        super().__init__(level=logging.DEBUG)
        self.mine = mine
        self.sink = sink

    def emit(self, record: logging.LogRecord) -> None:
        match = _TRACE_RE.match(record.getMessage())
        if match and self.mine(match.group("file")):
            self.sink.add((match.group("file"), int(match.group("line"))))


@contextlib.contextmanager
def record_traced_lines(observed: str, mine: Callable[[str], bool] | None = None) -> Iterator[set[tuple[str, int]]]:
    """Yield a set that fills with every ``(file, line)`` under ``observed`` (or that ``mine``
    accepts) that Dynamo traced.

    Read from the ``trace_source`` artifact: a line there was symbolically executed by Dynamo, so a
    predicted break on it that did not happen is refuted, and one that never appears was not reached.
    """
    import torch._dynamo.symbolic_convert  # noqa: F401  (registers the artifact logger)

    sink: set[tuple[str, int]] = set()
    with _artifact("trace_source", _TraceHandler(mine or (lambda path: _inside(path, observed)), sink)):
        yield sink


class CountingBackend:
    """A ``torch.compile`` backend that counts the graphs it is handed and delegates them to ``inner``.

    ``inner`` is a backend name or a backend. It compares equal exactly when the backends it wraps do:
    ``torch.compile`` wraps a backend in a ``_TorchCompileWrapper`` whose ``__eq__`` compares them,
    and Dynamo recompiles a frame when a call's backend is not equal to the cached one
    (BACKEND_MATCH). A new backend object per call must still recompile, and the same one must not.
    ``on_graph``, when given, is called once per graph too (one tally over many backends).
    """

    def __init__(self, inner: Any, on_graph: Callable[[], None] | None = None) -> None:
        self.inner = inner
        self.on_graph = on_graph
        self.graphs = 0
        self.__name__ = getattr(inner, "__name__", str(inner))

    def __call__(self, gm: Any, example_inputs: Any, **kwargs: Any) -> Any:
        self.graphs += 1
        if self.on_graph is not None:
            self.on_graph()
        if isinstance(self.inner, str):
            from torch._dynamo.backends.registry import lookup_backend

            return lookup_backend(self.inner)(gm, example_inputs, **kwargs)
        return self.inner(gm, example_inputs, **kwargs)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CountingBackend) and bool(self.inner == other.inner)

    def __hash__(self) -> int:
        try:
            return hash(self.inner)
        except TypeError:
            return id(self.inner)
