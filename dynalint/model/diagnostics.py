"""DYN9xx: dynalint's own diagnostics about its input (files stage) and itself (lint stage).

A file that cannot be read or parsed, or a rule that raised on a file, becomes a ``Finding`` like any
other, so that it is reported with its path, counted in the exit code and never loses the other files'
findings. They are not rules: no LibCST visitor, no page; ``dynalint rule DYN901`` prints this table.
"""

from __future__ import annotations

from dataclasses import dataclass

from dynalint.model.finding import Finding, Position
from dynalint.model.version import __version__


@dataclass(frozen=True)
class Diagnostic:
    code: str
    name: str
    summary: str
    help: str


SYNTAX_ERROR = Diagnostic("DYN901", "syntax-error", "The file does not parse as Python",
                          "Fix the syntax error; nothing else in the file was checked")
UNREADABLE_FILE = Diagnostic("DYN902", "unreadable-file",
                             "The file or folder cannot be read as Python source (encoding, binary, special "
                             "file, symlink loop, permissions, a notebook that is not notebook JSON)",
                             "Save the file as UTF-8 (PEP 3120) and make it a readable regular file, or exclude it")
INTERNAL_ERROR = Diagnostic("DYN903", "internal-error", "dynalint itself failed on this file (a bug)",
                            "Please report this with the file; what the failing stage or rule would have found "
                            "in it was dropped")
# A limit, not a bug: the file is larger, deeper or slower than dynalint checks (each limit is named).
TOO_COMPLEX = Diagnostic("DYN904", "file-too-complex",
                         "The file is too large, too deeply nested or too slow to check in full",
                         "Exclude the file (generated code), or raise the limit the message names")
# Reported by ``--verify`` only: a break real Dynamo saw where no rule predicted one.
OBSERVED_BREAK = Diagnostic("DYN090", "observed-graph-break", "Dynamo broke the graph on a line no rule flagged",
                            "See the GB id's page for the cause; tell us, so that a rule can learn it")
ALL_DIAGNOSTICS = (OBSERVED_BREAK, SYNTAX_ERROR, UNREADABLE_FILE, INTERNAL_ERROR, TOO_COMPLEX)


def _finding(diagnostic: Diagnostic, filename: str, line: int, column: int, message: str) -> Finding:
    position = Position(max(line, 1), max(column, 1))
    return Finding(diagnostic.code, diagnostic.name, message, filename, position, position, diagnostic.help)


def parse_error(filename: str, line: int, column: int, detail: str) -> Finding:
    return _finding(SYNTAX_ERROR, filename, line, column, f"Syntax error: {detail}")


def unreadable(filename: str, problem: str) -> Finding:
    return _finding(UNREADABLE_FILE, filename, 1, 1, f"Cannot read the file: {problem}")


def rule_crash(filename: str, code: str, name: str, detail: str) -> Finding:
    return _finding(INTERNAL_ERROR, filename, 1, 1,
                    f"Rule {code} `{name}` crashed on this file: {detail} ({_please_report()})")


def stage_crash(filename: str, stage: str, detail: str) -> Finding:
    """Whatever a pipeline stage raised on one file (the file's other stages and the other files go on)."""
    return _finding(INTERNAL_ERROR, filename, 1, 1,
                    f"Internal error in the {stage} stage: {detail} ({_please_report()})")


def too_complex(filename: str, line: int, problem: str) -> Finding:
    return _finding(TOO_COMPLEX, filename, line, 1, f"Not checked in full: {problem}")


def _please_report() -> str:
    return f"dynalint {__version__}; please report it with the file"
