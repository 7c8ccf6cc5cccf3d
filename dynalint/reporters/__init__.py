"""Report stage: format sorted findings for people (``text``) and tools (``json``).

Reporters only format; they never filter, sort or decide the exit code.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TextIO

from dynalint.finding import Finding
from dynalint.reporters import json_report, text

Reporter = Callable[[Sequence[Finding], TextIO], None]
REPORTERS: dict[str, Reporter] = {"text": text.write, "json": json_report.write}
