"""JSON reporter: a list of findings with ruff's field names plus dynalint's own (see README "JSON output").

``as_dict`` is the one shape of a finding as JSON; ``json-lines`` writes the same objects one a line.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TextIO

from dynalint.model import selection
from dynalint.model.finding import Finding
from dynalint.output.reporters.run import Run


def as_dict(finding: Finding) -> dict[str, object]:
    """The finding as one JSON object (the README's field table)."""
    region = finding.region
    return {
        "code": finding.code,
        "name": finding.name,
        "message": finding.message,
        "filename": finding.filename,
        "cell": finding.cell,  # ruff's: the notebook cell (1-based) the rows count in; null in a .py file
        "location": {"row": finding.start.line, "column": finding.start.column},
        "end_location": {"row": finding.end.line, "column": finding.end.column},
        "fix": None if finding.fix is None else finding.fix.as_dict(),
        "noqa_row": finding.start.line,
        "url": selection.finding_url(finding.code, finding.gb_ids),
        "severity": "error",
        "help": finding.help,
        "confidence": finding.confidence.value,
        "gb_ids": list(finding.gb_ids),
        "region": None
        if region is None
        else {
            "function": region.function,
            "confidence": region.confidence.value,
            "chain": [
                {"filename": link.filename, "cell": link.cell, "line": link.line, "function": link.function,
                 "how": link.how}
                for link in region.chain
            ],
        },
        "verify": None if finding.verify is None else finding.verify.as_dict(),
        "torch": None if finding.torch is None else finding.torch.as_dict(),
    }


def write(findings: Sequence[Finding], out: TextIO, run: Run) -> None:
    json.dump([as_dict(f) for f in findings], out, indent=2)
    out.write("\n")
