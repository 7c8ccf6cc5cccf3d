"""GitLab Code Quality reporter: the JSON array a merge request's Code Quality widget reads (``gitlab``).

Each finding has GitLab's documented fields only: ``description``, ``check_name``, ``fingerprint``,
``severity`` and ``location`` (``path``, ``source_lines.begin``). GitLab compares reports across commits
by fingerprint, so it is ``fingerprint.py``'s, which leaves out line numbers: code moved by an edit
above it is not reported as a new finding. Severity: ``major`` for an error, ``minor`` for a
``likely`` finding. GitLab needs a line: a finding in a notebook is placed on line 1 of the file and
its description starts with the cell position (``cell 3:4:5: ``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TextIO

from dynalint.model.finding import Finding
from dynalint.output.fingerprint import fingerprints
from dynalint.output.reporters import levels, text
from dynalint.output.reporters.run import Run

SEVERITY = {"error": "major", "warning": "minor"}


def issues(findings: Sequence[Finding]) -> list[dict[str, object]]:
    return [
        {
            "description": text.in_notebook(finding) + text.describe(finding),
            "check_name": finding.code,
            "fingerprint": fingerprint,
            "severity": SEVERITY[levels.level(finding)],
            "location": {"path": finding.filename,
                         "lines": {"begin": finding.start.line if finding.cell is None else 1}},
        }
        for finding, fingerprint in zip(findings, fingerprints(findings))
    ]


def write(findings: Sequence[Finding], out: TextIO, run: Run) -> None:
    json.dump(issues(findings), out, indent=2)
    out.write("\n")
