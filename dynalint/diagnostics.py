"""DYN9xx: dynalint's own diagnostics about its input (files stage) and itself (lint stage).

A file that cannot be read or parsed, or a rule that raised on a file, becomes a ``Finding`` like any
other, so that it is reported with its path, counted in the exit code and never loses the other files'
findings. They are not rules: no LibCST visitor, no page; ``dynalint rule DYN901`` prints this table.
"""

from __future__ import annotations

from dataclasses import dataclass

from dynalint.finding import Finding, Position


@dataclass(frozen=True)
class Diagnostic:
    code: str
    name: str
    summary: str
    help: str


SYNTAX_ERROR = Diagnostic("DYN901", "syntax-error", "The file does not parse as Python",
                          "Fix the syntax error; nothing else in the file was checked")
UNREADABLE_FILE = Diagnostic("DYN902", "unreadable-file", "The file cannot be read as UTF-8 Python source",
                             "Save the file as UTF-8 (PEP 3120), or exclude it")
INTERNAL_ERROR = Diagnostic("DYN903", "internal-error", "A rule crashed on this file",
                            "Please report this with the file; the rule's other findings in it were dropped")
# Reported by ``--verify`` only: a break real Dynamo saw where no rule predicted one.
OBSERVED_BREAK = Diagnostic("DYN090", "observed-graph-break", "Dynamo broke the graph on a line no rule flagged",
                            "See the GB id's page for the cause; tell us, so that a rule can learn it")
ALL_DIAGNOSTICS = (OBSERVED_BREAK, SYNTAX_ERROR, UNREADABLE_FILE, INTERNAL_ERROR)


def _finding(diagnostic: Diagnostic, filename: str, line: int, column: int, message: str) -> Finding:
    position = Position(max(line, 1), max(column, 1))
    return Finding(diagnostic.code, diagnostic.name, message, filename, position, position, diagnostic.help)


def parse_error(filename: str, line: int, column: int, detail: str) -> Finding:
    return _finding(SYNTAX_ERROR, filename, line, column, f"Syntax error: {detail}")


def unreadable(filename: str, problem: str) -> Finding:
    return _finding(UNREADABLE_FILE, filename, 1, 1, f"Cannot read the file: {problem}")


def rule_crash(filename: str, code: str, name: str, detail: str) -> Finding:
    return _finding(INTERNAL_ERROR, filename, 1, 1, f"Rule {code} `{name}` crashed on this file: {detail}")
