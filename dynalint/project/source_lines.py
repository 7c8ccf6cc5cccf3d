"""Source lines cut the way Python's tokenizer cuts them, for the stages that work on line numbers.

``str.splitlines`` also breaks at form feeds, U+0085, U+2028 and other separators that Python reads
as ordinary characters inside strings and comments: cutting there shifts every later line against
the ``ast`` line numbers the summary stage recorded. Python ends a line at ``\\n``, ``\\r\\n`` or a lone
``\\r``, and nowhere else. Used by the lint stage (cutting out compiled functions) and by suppression
(tokenizing comments).
"""

from __future__ import annotations

import re

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def python_lines(text: str) -> list[str]:
    """The lines of ``text`` with their line endings, as numbered by Python (line ``n`` is ``[n - 1]``)."""
    return _LINE.findall(text)


def indentation(line: str) -> str:
    """The leading whitespace that counts as indentation: a form feed resets it, as in the tokenizer."""
    stripped = line[: len(line) - len(line.lstrip(" \t\f"))]
    return stripped.rpartition("\f")[2]
