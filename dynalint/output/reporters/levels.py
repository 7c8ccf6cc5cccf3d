"""How serious a finding is, for the formats that show a level (github, sarif, gitlab, junit).

One place decides it so that every format agrees: a ``likely`` finding (inferred region or
heuristic receiver) is a warning, everything else an error. DYN9xx diagnostics say the file was
not (fully) checked: JUnit shows them as errors rather than failures.
"""

from __future__ import annotations

from dynalint.model.finding import Confidence, Finding


def level(finding: Finding) -> str:
    """``error`` or ``warning`` (the names GitHub and SARIF share)."""
    return "warning" if finding.confidence is Confidence.LIKELY else "error"


def is_unchecked_file(finding: Finding) -> bool:
    """A DYN9xx diagnostic: dynalint could not read, parse or finish the file."""
    return finding.code.startswith("DYN9")
