"""JSON Lines reporter: each finding as one compact JSON object on its own line (``json-lines``).

The objects are the ``json`` format's (``json_report.as_dict``); a stream of them suits ``jq -c``,
log shippers and tools that read findings as they come. No findings, no lines.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TextIO

from dynalint.model.finding import Finding
from dynalint.output.reporters.json_report import as_dict
from dynalint.output.reporters.run import Run


def write(findings: Sequence[Finding], out: TextIO, run: Run) -> None:
    for finding in findings:
        out.write(json.dumps(as_dict(finding), separators=(",", ":")) + "\n")
