"""What a run of the pipeline gives its front end: the sorted findings and what the run saw on the way.

Made by ``run.py`` (one ``LintResult`` per config group, merged into one for the run); read by the CLI,
the language server, the census plugin and ``--verify`` (which plans its jobs from ``program`` and
``entries``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from dynalint.analysis.program import Program
from dynalint.model.finding import Finding, Region

STDIN = "-"  # the path that means standard input


@dataclass
class LintResult:
    findings: list[Finding] = field(default_factory=list)
    files_checked: int = 0
    program: Program | None = None  # the linked tree, for ``--verify`` to plan what to compile
    entries: list[Region] = field(default_factory=list)  # compile entry points in the files asked for
    skipped: list[str] = field(default_factory=list)  # excluded folders that hold Python files
    warnings: list[str] = field(default_factory=list)  # what was not linted and why (non-Python files, ...)


def merged(results: Sequence[LintResult]) -> LintResult:
    """One result for a run of several config groups: findings sorted together, counts added; the first
    group's linked program (``--verify`` refuses runs of more than one group)."""
    if len(results) == 1:
        return results[0]
    first = results[0]
    return LintResult(
        sorted((f for r in results for f in r.findings), key=lambda f: f.sort_key),
        sum(r.files_checked for r in results), first.program, [e for r in results for e in r.entries],
        [s for r in results for s in r.skipped], [w for r in results for w in r.warnings],
    )
