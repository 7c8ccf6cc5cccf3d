"""Beside the pipeline, for the CLI: a progress line on stderr, and whether a stream gets colours.

The pipeline (``Pipeline(progress=...)``) reports each stage's count of files done (``summarizing 340/1105 files``) to a
callback; ``Progress`` draws it on one line of a terminal, only once a run has lasted ``delay``
seconds (short runs, the usual pre-commit case, never flicker), at most every ``interval``, and
erases it before the report is printed. Nothing is drawn on a pipe or a file, in CI (``CI`` set,
as every CI service does), or on a ``dumb`` terminal: logs stay clean.

Colours follow the same rule of thumb for the report: on a terminal only, never when ``NO_COLOR``
is set to anything (https://no-color.org).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import TextIO

Report = Callable[[str, int, int], None]  # (stage, files done, files in the stage)

_ERASE = "\r\x1b[K"


def _terminal(stream: TextIO, environ: Mapping[str, str]) -> bool:
    try:
        return stream.isatty() and environ.get("TERM") != "dumb"
    except (AttributeError, ValueError):  # a stream without a file descriptor, or a closed one
        return False


def wants_progress(stream: TextIO, environ: Mapping[str, str]) -> bool:
    return _terminal(stream, environ) and not environ.get("CI")


def wants_color(stream: TextIO, environ: Mapping[str, str]) -> bool:
    return _terminal(stream, environ) and not environ.get("NO_COLOR")


class Progress:
    """One self-erasing line on ``stream`` for runs longer than ``delay`` seconds."""

    def __init__(self, stream: TextIO, delay: float = 1.0, interval: float = 0.1,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.stream = stream
        self.delay = delay
        self.interval = interval
        self.clock = clock
        self.started = clock()
        self.drawn_at: float | None = None

    def update(self, stage: str, done: int, total: int) -> None:
        now = self.clock()
        if now - self.started < self.delay:
            return
        if self.drawn_at is not None and now - self.drawn_at < self.interval and done < total:
            return
        self.stream.write(f"{_ERASE}dynalint: {stage} {done}/{total} files")
        self.stream.flush()
        self.drawn_at = now

    def close(self) -> None:
        """Erase the line, if one was drawn, so that what is printed next starts a clean line."""
        if self.drawn_at is not None:
            self.stream.write(_ERASE)
            self.stream.flush()
            self.drawn_at = None
