"""What a reporter may say about the run besides its findings (report stage, filled in by the CLI).

Most formats need only the findings; SARIF records the exit status and where the run happened, and
the text formats whether to colour (stdout is a terminal and ``NO_COLOR`` is not set).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Run:
    exit_code: int = 0  # what the command exits with once the report is written
    files_checked: int = 0
    working_directory: Path = field(default_factory=Path.cwd)  # what relative filenames are relative to
    color: bool = False  # ANSI colours in the text formats
