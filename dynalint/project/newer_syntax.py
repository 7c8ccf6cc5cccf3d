"""Parse stage helper: say when a syntax error is only syntax newer than the Python running dynalint.

The summary stage parses with the running interpreter's ``ast``, so a file written for Python 3.12
(``type X = int``, ``def f[T](x: T)``) is a DYN901 under Python 3.11. Its message should say so rather
than a bare "invalid syntax". ``describe`` recognises a construct from a small table: the Python
version that introduced it, a pattern its line must match, and, where the interpreter's message is
distinctive, that message. A construct is named only when it is newer than the running interpreter
and its pattern matches the line the error points at; anything else keeps the interpreter's own
message, because a guess would send users to the wrong fix. Not recognised (the interpreter's message
stays): PEP 701 f-strings (3.12), whose errors look like real f-string mistakes.
"""

from __future__ import annotations

import platform
import re
import sys
from dataclasses import dataclass


@dataclass(frozen=True)
class Construct:
    since: tuple[int, int]
    what: str
    line: re.Pattern[str]  # the error's line must match
    message: str | None = None  # when set, the interpreter's message must start with it
    before_error: re.Pattern[str] | None = None  # when set, the line up to the error's column must match


_GENERIC_HEADER = r"^\s*(?:(?:async\s+)?def|class|type)\s+[A-Za-z_]\w*\s*\["
# Most specific first: a generic with a default needs 3.13 even though generics came in 3.12.
CONSTRUCTS = (
    Construct((3, 14), "a template string (PEP 750)", re.compile(r"(?i)(?<![\w'\"])(?:t|tr|rt)['\"]"),
              before_error=re.compile(r"(?i)(?<![\w'\"])(?:t|tr|rt)$")),
    Construct((3, 14), "an `except` clause listing exceptions without parentheses (PEP 758)",
              re.compile(r"^\s*except\*?\s+[^:()]+,[^:]*:"), message="multiple exception types must be parenthesized"),
    Construct((3, 13), "a type parameter default (PEP 696)", re.compile(_GENERIC_HEADER + r"[^\]]*=")),
    Construct((3, 12), "a `type` alias statement (PEP 695)",
              re.compile(r"^\s*type\s+[A-Za-z_]\w*\s*(?:\[.*\])?\s*=")),
    Construct((3, 12), "a generic function (PEP 695 type parameters)",
              re.compile(r"^\s*(?:async\s+)?def\s+[A-Za-z_]\w*\s*\[")),
    Construct((3, 12), "a generic class (PEP 695 type parameters)", re.compile(r"^\s*class\s+[A-Za-z_]\w*\s*\[")),
    Construct((3, 11), "an `except*` clause (PEP 654)", re.compile(r"^\s*except\s*\*")),
    Construct((3, 10), "a `match` statement (PEP 634)", re.compile(r"^\s*match\s+\S.*:\s*(?:#.*)?$")),
)


def recognise(error: SyntaxError, text: str, running: tuple[int, int] | None = None) -> Construct | None:
    """The construct newer than ``running`` (default: this interpreter) that ``error`` points at, if any."""
    running = running or sys.version_info[:2]
    line = _error_line(error, text)
    if line is None:
        return None
    for construct in CONSTRUCTS:
        if construct.since <= running or not construct.line.search(line):
            continue
        if construct.message is not None and not (error.msg or "").startswith(construct.message):
            continue
        if construct.before_error is not None and not construct.before_error.search(line[: max((error.offset or 1) - 1, 0)]):
            continue
        return construct
    return None


def describe(error: SyntaxError, text: str) -> str:
    """The interpreter's message, with the construct and the Python it needs when ``recognise`` knows it."""
    message = error.msg or "invalid syntax"
    construct = recognise(error, text)
    if construct is None:
        return message
    needed = ".".join(map(str, construct.since))
    return (f"{message}; {construct.what} needs Python {needed}+, but dynalint runs on Python "
            f"{platform.python_version()} (run it with Python {needed} or newer to check this file)")


def _error_line(error: SyntaxError, text: str) -> str | None:
    """The line the error points at: the interpreter's copy, else the text's (Python's line breaks only)."""
    if error.text is not None:
        return error.text.rstrip("\r\n")
    lines = re.split(r"\r\n|\r|\n", text)
    return lines[error.lineno - 1] if error.lineno and 0 < error.lineno <= len(lines) else None
