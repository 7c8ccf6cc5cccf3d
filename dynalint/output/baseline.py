"""A baseline of static findings: adopt dynalint on a codebase that already has findings.

After the lint stage, in the CLI: ``--write-baseline FILE`` records the run's findings,
``--baseline FILE`` drops those it holds, so that a commit fails only on findings it adds. Findings
are matched by fingerprint (``fingerprint.py``: code, file, function and the flagged line's tokens;
no line numbers), so lines moving or the file being reformatted elsewhere keep them matched. The file
is JSON, readable in review; each entry keeps the code, file, function and message beside its
fingerprint. Filenames are as the run shows them, so write and use a baseline from the same folder
(the project root, as pre-commit and CI do).
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dynalint.model.finding import Finding
from dynalint.model.version import __version__
from dynalint.output.fingerprint import fingerprints

FORMAT_KEY = "dynalint-findings-baseline"
FORMAT_VERSION = 1


class BaselineError(ValueError):
    """The file is not a findings baseline dynalint can read."""


@dataclass(frozen=True)
class Outcome:
    new: list[Finding]  # findings the baseline does not hold: these are reported
    known: int  # findings the baseline holds (not reported)
    gone: int  # baseline entries no finding matched any more: fixed since it was written


def write(findings: list[Finding], path: Path) -> int:
    """Record ``findings`` (sorted, as the pipeline returns them); how many were written."""
    entries = [
        {
            "fingerprint": print_,
            "code": finding.code,
            "filename": finding.filename,
            "function": finding.region.function if finding.region is not None else None,
            "line": finding.start.line,  # for people reading the file; matching ignores it
            "message": finding.message,
        }
        for finding, print_ in zip(findings, fingerprints(findings))
    ]
    document = {FORMAT_KEY: FORMAT_VERSION, "dynalint": __version__, "findings": entries}
    path.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    return len(entries)


def load(path: Path) -> Counter[str]:
    """The fingerprints a baseline holds, each with how many findings share it."""
    try:
        document: Any = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise BaselineError(f"{path}: cannot read the baseline: {error}") from error
    if not isinstance(document, dict) or document.get(FORMAT_KEY) != FORMAT_VERSION:
        hint = " (a --verify break census? compare those with --verify --baseline)" if isinstance(
            document, dict) and "functions" in document else ""
        raise BaselineError(f"{path}: not a dynalint findings baseline{hint}; write one with --write-baseline")
    entries = document.get("findings")
    if not isinstance(entries, list) or not all(isinstance(e, dict) and isinstance(e.get("fingerprint"), str)
                                                for e in entries):
        raise BaselineError(f"{path}: `findings` must be a list of entries with a `fingerprint`")
    return Counter(entry["fingerprint"] for entry in entries)


def apply(findings: list[Finding], recorded: Counter[str]) -> Outcome:
    """Split the run's findings into those the baseline holds and the new ones."""
    remaining = Counter(recorded)
    new = []
    for finding, print_ in zip(findings, fingerprints(findings)):
        if remaining[print_] > 0:
            remaining[print_] -= 1
        else:
            new.append(finding)
    known = len(findings) - len(new)
    return Outcome(new, known, sum(remaining.values()))
